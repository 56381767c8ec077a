import { ApiError } from './api-error';

/**
 * The answer to a request Node's HTTP parser refused before the app saw it (docs/decisions/0029-malformed-requests.md),
 * in the spec's catalog: an unparsable path is an unknown endpoint (404 `not_found`); an oversized or broken query
 * parameter or header is a bad parameter or header (422 `validation_error`) naming it when the bytes show it. Pure:
 * it reads the parser's error and the bytes it was parsing.
 */
export interface ParserError {
  /** `HPE_*` from llhttp; anything else (timeouts, resets) gets no answer. */
  code?: string;
  /** Offset in `rawPacket` where parsing stopped. */
  bytesParsed?: number;
  /** The chunk being parsed; the request's first bytes when the request came in one piece. */
  rawPacket?: Buffer;
}

const METHOD = /^[A-Z]{3,7} /;
const SHOWN = 100;

const shown = (text: string) => (text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text);

/** The query parameter whose bytes hold `offset` of `query` (which starts at `start` in the packet). */
function parameterAt(query: string, start: number, offset: number): string {
  let from = 0;
  for (const part of query.split('&')) {
    if (start + from + part.length >= offset) return shown(part.split('=')[0]!);
    from += part.length + 1;
  }
  return shown(query.split('&').pop()!.split('=')[0]!);
}

function requestTargetRefusal(target: string, targetStart: number, offset: number, tooLong?: number): ApiError {
  const question = target.indexOf('?');
  if (question === -1 || targetStart + question > offset) return new ApiError('not_found');
  const parameter = parameterAt(target.slice(question + 1), targetStart + question + 1, offset);
  return new ApiError('validation_error', {
    message: tooLong
      ? `The request line and headers exceed ${tooLong} bytes; the query parameter \`${parameter}\` is too long.`
      : `The query parameter \`${parameter}\` holds a byte a URL cannot carry; percent-encode it.`,
    details: { parameter, ...(tooLong ? { max_bytes: tooLong } : {}) },
  });
}

function headerRefusal(line: string, tooLong?: number): ApiError {
  const colon = line.indexOf(':');
  const header = shown(colon === -1 ? line : line.slice(0, colon));
  return new ApiError('validation_error', {
    message: tooLong
      ? `The request line and headers exceed ${tooLong} bytes; the header \`${header}\` is the largest.`
      : `The header \`${header}\` is not valid HTTP: a character headers cannot carry, or a value its name forbids.`,
    details: { header, ...(tooLong ? { max_bytes: tooLong } : {}) },
  });
}

const unreadable = (maxHeaderBytes: number | undefined) =>
  new ApiError('validation_error', {
    message:
      maxHeaderBytes === undefined
        ? 'The request is not valid HTTP/1.1.'
        : `The request line and headers exceed ${maxHeaderBytes} bytes.`,
    ...(maxHeaderBytes === undefined ? {} : { details: { max_bytes: maxHeaderBytes } }),
  });

interface Line {
  start: number;
  text: string;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    lines.push({ start, text: text.slice(start, stop).replace(/\r$/, '') });
    if (end === -1) break;
    start = end + 1;
  }
  return lines;
}

/** The answer to a parser error, or null when the connection is to be closed without one. */
export function refusalOfMalformedRequest(error: ParserError, maxHeaderBytes: number): ApiError | null {
  if (!error.code?.startsWith('HPE_')) return null;
  const overflow = error.code === 'HPE_HEADER_OVERFLOW' ? maxHeaderBytes : undefined;
  const text = error.rawPacket?.toString('latin1') ?? '';
  // A packet that does not open with a request line is a later piece of the request: nothing to name.
  if (!METHOD.test(text)) return unreadable(overflow);
  const lines = linesOf(text);
  const headEnd = lines.findIndex((line, i) => i > 0 && line.text === '');
  const requestLine = lines[0]!;
  const headers = lines.slice(1, headEnd === -1 ? lines.length : headEnd);
  const targetStart = requestLine.text.indexOf(' ') + 1;
  const versionAt = requestLine.text.lastIndexOf(' HTTP/');
  const target = requestLine.text.slice(targetStart, versionAt > targetStart ? versionAt : undefined);

  if (overflow !== undefined) {
    const largest = headers.reduce<Line | null>((a, b) => (a && a.text.length >= b.text.length ? a : b), null);
    if (largest && largest.text.length > target.length) return headerRefusal(largest.text, overflow);
    return requestTargetRefusal(target, targetStart, targetStart + target.length, overflow);
  }
  const offset = error.bytesParsed ?? 0;
  if (offset < requestLine.start + requestLine.text.length || lines.length === 1) {
    if (offset >= targetStart && offset < targetStart + target.length)
      return requestTargetRefusal(target, targetStart, offset);
    return unreadable(undefined);
  }
  // Past the headers the request was the app's, which answered it or answers it (client-error.ts): nothing to add.
  if (headEnd !== -1 && offset >= lines[headEnd]!.start) return null;
  const header = headers.find((line) => offset >= line.start && offset <= line.start + line.text.length + 1);
  return header ? headerRefusal(header.text) : unreadable(undefined);
}
