import { connect } from 'node:net';

/**
 * An HTTP/1.1 client that sends exactly the bytes it is given: raw bytes in the request target, control characters and
 * oversized header sections, bodies with `Transfer-Encoding: chunked`. fetch and node:http refuse to send most of that,
 * and a server must still answer it with the spec's error body.
 */
export interface RawRequest {
  method: string;
  /** The request target as sent (`/v1/labels?x=1`); a Buffer carries bytes no string can. */
  target: string | Buffer;
  headers?: Array<[string, string | Buffer]>;
  body?: Buffer;
  /** Send the body in chunks of this size with `Transfer-Encoding: chunked` instead of `Content-Length`. */
  chunkBytes?: number;
  /** Leave out the `Host` header. */
  noHost?: boolean;
  /** Send the body bytes as given, without `Content-Length`: the caller frames them (a broken chunked body). */
  framed?: boolean;
}

export interface RawResponse {
  status: number;
  /** Lowercase names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

function encodeRequest(host: string, request: RawRequest): Buffer {
  const line = (name: string, value: string | Buffer) =>
    Buffer.concat([Buffer.from(`${name}: `, 'latin1'), Buffer.from(value as string, 'latin1'), Buffer.from('\r\n')]);
  const parts: Buffer[] = [
    Buffer.from(`${request.method} `, 'latin1'),
    Buffer.isBuffer(request.target) ? request.target : Buffer.from(request.target, 'latin1'),
    Buffer.from(' HTTP/1.1\r\n'),
    ...(request.noHost ? [] : [line('Host', host)]),
    ...(request.headers ?? []).map(([name, value]) => line(name, value)),
  ];
  const body = request.body;
  if (body && request.chunkBytes) {
    parts.push(line('Transfer-Encoding', 'chunked'), Buffer.from('\r\n'));
    for (let at = 0; at < body.length; at += request.chunkBytes) {
      const chunk = body.subarray(at, at + request.chunkBytes);
      parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from('0\r\n\r\n'));
  } else if (body && request.framed) {
    parts.push(Buffer.from('\r\n'), body);
  } else if (body) {
    parts.push(line('Content-Length', String(body.length)), Buffer.from('\r\n'), body);
  } else {
    parts.push(Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/**
 * The first complete final response in `data` (a `100 Continue` before it is skipped), or null while it is incomplete
 * (`closed`: the server closed the socket).
 */
function parseResponse(data: Buffer, closed: boolean): RawResponse | null {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1]);
  if (status >= 100 && status < 200) return parseResponse(data.subarray(end + 4), closed);
  const headers: Record<string, string> = {};
  for (const header of lines) {
    const colon = header.indexOf(':');
    const name = header.slice(0, colon).trim().toLowerCase();
    const value = header.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  let rest = data.subarray(end + 4);
  let body: Buffer;
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length < length) return null;
    body = rest.subarray(0, length);
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd === -1) return null;
      const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (rest.length < lineEnd + 2 + size + 2) return null;
      if (size === 0) break;
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    body = Buffer.concat(chunks);
  } else if ([204, 304].includes(status)) {
    body = Buffer.alloc(0);
  } else {
    if (!closed) return null;
    body = rest;
  }
  return { status, headers, body, text: body.toString('utf8') };
}

/** A request target as a URL path and query can show it: bytes no URL may carry are percent-encoded. */
export function encodeTarget(target: string | Buffer): string {
  const text = Buffer.isBuffer(target) ? target.toString('latin1') : target;
  return text.replace(/[^\x21-\x7e]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`);
}

/**
 * Sends one request on a connection of its own and reads the first response. The connection is not marked
 * `Connection: close`: a server answering before the whole body arrived keeps reading the rest, so the answer is not
 * lost to a reset, as a keep-alive client sees it.
 */
export function sendRaw(baseUrl: string, request: RawRequest, timeoutMs = 15_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (error: Error | null, response?: RawResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(response!);
    };
    const timer = setTimeout(
      () => settle(new Error(`no complete answer within ${timeoutMs} ms (${received.length} bytes received)`)),
      timeoutMs,
    );
    socket.on('connect', () => socket.write(encodeRequest(url.host, request)));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const response = parseResponse(received, false);
      if (response) settle(null, response);
    });
    socket.on('end', () => {
      const response = parseResponse(received, true);
      settle(
        response ? null : new Error(`the server closed the connection without an answer (${received.length} bytes)`),
        response ?? undefined,
      );
    });
    socket.on('error', (error) => {
      const response = parseResponse(received, true);
      settle(response ? null : error, response ?? undefined);
    });
  });
}
