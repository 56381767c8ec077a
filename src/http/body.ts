import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-error';
import type { AppContext } from './state';

/**
 * The deepest JSON a request body may nest (docs/decisions/0028-request-input-bounds.md). The deepest body the API
 * defines is 3 levels (`parcels[0].weight_grams`); 32 leaves room for new fields and keeps every recursive walk over a
 * body (zod, JSON.stringify of a refused value) far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 32;

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('validation_error', {
    message: `The request body exceeds ${maxBytes} bytes.`,
    details: { parameter: 'body', max_bytes: maxBytes },
  });
}

/** Refuses a declared Content-Length over the limit before anything is read, on every path. */
export function declaredBodyTooLarge(ctx: AppContext, maxBytes: number): ApiError | null {
  const length = Number(ctx.get('content-length') || 0);
  return length > maxBytes ? tooLarge(maxBytes) : null;
}

/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`, counted over the text before it is parsed, so a
 * hostile body never becomes a deep value. Brackets inside strings do not count; malformed text is left to JSON.parse.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next char; a quote ends the string.
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

const brokenFraming = () =>
  new ApiError('validation_error', {
    message: 'The request body is not valid HTTP/1.1 framing (a chunk size or the end of the chunks).',
    details: { parameter: 'body' },
  });

/** Requests whose body framing Node's parser refused mid-body (src/http/client-error.ts), and readers waiting on one. */
const brokenBodies = new WeakSet<IncomingMessage>();
const readers = new WeakMap<IncomingMessage, (error: ApiError) => void>();

/**
 * Marks a request whose body framing the parser refused (a bad chunk size): the app still answers it, with its own
 * ID, and a route reading the body refuses it instead of acting on the part that arrived. The stream is left alone:
 * ending an incomplete request destroys its socket under the answer.
 */
export function refuseBrokenBody(req: IncomingMessage): void {
  brokenBodies.add(req);
  readers.get(req)?.(brokenFraming());
}

/**
 * Reads the body up to `maxBytes`, whether it declares its length or comes chunked. On overflow the rest is drained,
 * not torn down: destroying the request would close the socket before the 422 is written. A client that goes away
 * mid-body gets a 4xx in the logs, not an internal error.
 */
function readBytes(ctx: AppContext, maxBytes: number): Promise<Buffer> {
  const req = ctx.req;
  return new Promise((resolve, reject) => {
    if (brokenBodies.has(req)) return reject(brokenFraming());
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (error?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      readers.delete(req);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else {
        done(tooLarge(maxBytes));
        req.resume();
      }
    };
    const onEnd = () => done();
    const onError = (error: NodeJS.ErrnoException) =>
      done(
        error.code === 'ECONNRESET'
          ? new ApiError('validation_error', {
              message: 'The request body ended before it was complete.',
              details: { parameter: 'body' },
            })
          : error,
      );
    readers.set(req, done);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
  });
}

/** Reads and parses a JSON body with a byte and a depth limit; bad JSON or content type is a 422 `validation_error`. */
export async function readJsonBody(ctx: AppContext, maxBytes: number): Promise<unknown> {
  const bytes = await readBytes(ctx, maxBytes);
  if (bytes.length === 0) return undefined;
  if (!ctx.is('application/json')) {
    throw new ApiError('validation_error', {
      message: 'Send the body as application/json.',
      details: { header: 'Content-Type', received: ctx.get('content-type') || null, allowed: ['application/json'] },
    });
  }
  const text = bytes.toString('utf8');
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ApiError('validation_error', {
      message: `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`,
      details: { parameter: 'body', max_depth: MAX_JSON_DEPTH },
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('validation_error', {
      message: 'The request body is not valid JSON.',
      details: { parameter: 'body', received: 'malformed JSON' },
    });
  }
}
