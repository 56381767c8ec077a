import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a sandbox handler answers: JSON, a PDF, raw text, or a dropped connection (a simulated timeout). */
export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'pdf'; bytes: Uint8Array }
  | { kind: 'raw'; status: number; contentType: string; body: string; headers?: Record<string, string> }
  | { kind: 'drop'; afterMs: number };

export interface SandboxRequest {
  method: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** The body's exact text (a signature is computed over these bytes, not over the parsed JSON). */
  rawBody: string;
}

export type Handler = (request: SandboxRequest) => Promise<Reply>;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: Handler;
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
  kind: 'json',
  status,
  body,
  ...(headers ? { headers } : {}),
});
export const pdf = (bytes: Uint8Array): Reply => ({ kind: 'pdf', bytes });
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A tiny router: `/carrier-a/accounts/:account/packets/:id`; parameters are URL-decoded (GIDs contain `/`). */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, path: string, handler: Handler): this {
    const names: string[] = [];
    const source = path.replace(/:(\w+)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    this.routes.push({ method, pattern: new RegExp(`^${source}$`), names, handler });
    return this;
  }

  match(
    method: string,
    pathname: string,
  ): { handler: Handler; params: Record<string, string> } | 'method_not_allowed' | null {
    let pathMatched = false;
    for (const route of this.routes) {
      const m = route.pattern.exec(pathname);
      if (!m) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1] ?? '')));
      return { handler: route.handler, params };
    }
    return pathMatched ? 'method_not_allowed' : null;
  }
}

/** A bad control or simulator request; rendered as 400 with the message. */
export class BadRequest extends Error {
  constructor(
    message: string,
    readonly issues: unknown = undefined,
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage): Promise<{ body: unknown; rawBody: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return { body: undefined, rawBody: '' };
  const text = Buffer.concat(chunks).toString('utf8');
  // The fake Packeta speaks XML: its handler reads the raw body.
  if (/xml/.test(req.headers['content-type'] ?? '')) return { body: undefined, rawBody: text };
  try {
    return { body: JSON.parse(text) as unknown, rawBody: text };
  } catch {
    throw new BadRequest('body is not valid JSON');
  }
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply.kind === 'drop') {
    // Hold the request, then cut the connection without an answer: the caller sees a timeout or a reset.
    setTimeout(() => res.socket?.destroy(), reply.afterMs);
    return;
  }
  if (reply.kind === 'raw') {
    res.writeHead(reply.status, { 'content-type': reply.contentType, ...reply.headers });
    res.end(reply.body);
    return;
  }
  if (reply.kind === 'pdf') {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': reply.bytes.length });
    res.end(Buffer.from(reply.bytes));
    return;
  }
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(text);
}

export function requestListener(router: Router, onError: (error: unknown) => void) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const found = router.match(req.method ?? 'GET', url.pathname);
    if (found === null)
      return send(res, json(404, { error: 'not_found', message: `no sandbox route ${req.method} ${url.pathname}` }));
    if (found === 'method_not_allowed') return send(res, json(405, { error: 'method_not_allowed' }));
    readBody(req)
      .then(({ body, rawBody }) =>
        found.handler({
          method: req.method ?? 'GET',
          params: found.params,
          query: url.searchParams,
          headers: req.headers,
          body,
          rawBody,
        }),
      )
      .then((reply) => send(res, reply))
      .catch((error: unknown) => {
        if (error instanceof BadRequest)
          return send(res, json(400, { error: 'bad_request', message: error.message, issues: error.issues }));
        onError(error);
        send(res, json(500, { error: 'sandbox_internal_error' }));
      });
  };
}
