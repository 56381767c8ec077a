import { ApiError } from './api-error';
import type { AppContext } from './state';

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

/** Reads and parses a JSON body with a byte limit; bad JSON or content type is a 422 `validation_error`. */
export async function readJsonBody(ctx: AppContext, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  if (!ctx.is('application/json')) {
    throw new ApiError('validation_error', {
      message: 'Send the body as application/json.',
      details: { header: 'Content-Type', received: ctx.get('content-type') || null, allowed: ['application/json'] },
    });
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('validation_error', {
      message: 'The request body is not valid JSON.',
      details: { parameter: 'body', received: 'malformed JSON' },
    });
  }
}
