import { STATUS_CODES, maxHeaderSize, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { newId } from '../ids';
import type { Logger } from '../logger';
import { refuseBrokenBody } from './body';
import { errorBody } from './error-body';
import { refusalOfMalformedRequest, type ParserError } from './malformed-request';
import { DEFAULT_CACHE_CONTROL } from './middleware';
import { CURRENT_VERSION } from '../domain/versions';

/** How long a refused connection may stay open for the client to read the answer before it is closed. */
const LINGER_MS = 2_000;
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Scheme and host for `doc_url`: PUBLIC_BASE_URL, else the request's Host header when it is one, else the socket's. */
function baseOf(socket: Duplex, rawPacket: Buffer | undefined, publicBaseUrl: string | undefined): string {
  if (publicBaseUrl) return publicBaseUrl;
  const host = /\r?\nhost:[ \t]*([^\r\n]*)/i.exec(rawPacket?.toString('latin1') ?? '')?.[1]?.trim();
  if (host && HOST.test(host)) return `http://${host}`;
  const local = socket as unknown as { localAddress?: string; localPort?: number };
  const address = local.localAddress?.includes(':') ? `[${local.localAddress}]` : local.localAddress;
  return `http://${address ?? 'localhost'}:${local.localPort ?? 80}`;
}

/**
 * Every request gets the spec's error body, also those Node would answer itself with an empty body: requests its HTTP
 * parser refuses (an oversized header section or URL, raw bytes in the path, broken framing; Node's 400 and 431) are
 * answered here with a fresh `X-Request-Id` and the headers every answer carries; an HTTP/1.1 request without `Host`
 * (Node's 400) and an `Expect` other than `100-continue` (Node's 417) go to the app, which answers them as any other.
 * Wired by `serveConnections` (src/http/connections.ts) wherever the app listens.
 */
export function answerMalformedRequests(
  server: Server,
  options: { logger: Logger; publicBaseUrl: string | undefined },
): void {
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  // RFC 9110 10.1.1: a server MAY answer 417 to an expectation it does not know; this one ignores it.
  server.on('checkExpectation', (req, res) => server.emit('request', req, res));
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: Error & ParserError, socket: Duplex) => {
    // The parser reports every later chunk of a refused connection again; it gets one answer.
    if (answered.has(socket)) return;
    answered.add(socket);
    // A request the app has: its body broke. The app answers it (with its own ID) and the connection ends there;
    // a second answer on the socket would corrupt the first.
    const inFlight = (socket as unknown as { _httpMessage?: ServerResponse })._httpMessage;
    if (inFlight) {
      inFlight.shouldKeepAlive = false;
      if (!inFlight.headersSent && !inFlight.req.complete) refuseBrokenBody(inFlight.req);
      else inFlight.once('finish', () => socket.destroy());
      return;
    }
    const refusal = refusalOfMalformedRequest(error, maxHeaderSize);
    if (!refusal || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = newId('request');
    const body = JSON.stringify(errorBody(refusal, requestId, baseOf(socket, error.rawPacket, options.publicBaseUrl)));
    const head = [
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      `Service-Version: ${CURRENT_VERSION}`,
      `Cache-Control: ${DEFAULT_CACHE_CONTROL}`,
      'Connection: close',
    ];
    // End, not destroy: closing with unread bytes would reset the connection and the client could lose the answer.
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    options.logger.info(
      {
        request_id: requestId,
        method: null,
        route: null,
        path: null,
        status: refusal.status,
        error_code: refusal.code,
        parse_error: error.code ?? null,
        store_id: null,
        api_key_id: null,
      },
      'request',
    );
  });
}
