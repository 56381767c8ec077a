import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpCall, HttpCallError } from '../../src/net/http-call';

let server: Server;
let base: string;
const sockets = new Set<unknown>();
let handler: (req: IncomingMessage, res: ServerResponse, body: string) => void;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as HttpCallError,
  );

describe('httpCall', () => {
  it('sends the method, headers and body, and answers the status, headers and whole body', async () => {
    handler = (req, res, body) => {
      res.setHeader('retry-after', '7');
      res.writeHead(201).end(JSON.stringify({ method: req.method, type: req.headers['content-type'], body }));
    };
    const answer = await httpCall({
      url: `${base}/x`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":"č"}',
      timeoutMs: 2000,
    });
    expect(answer.status).toBe(201);
    expect(answer.headers['retry-after']).toBe('7');
    expect(JSON.parse(answer.bytes.toString())).toEqual({
      method: 'POST',
      type: 'application/json',
      body: '{"a":"č"}',
    });
  });

  it('keeps the connection alive between calls', async () => {
    handler = (_req, res) => res.end('ok');
    sockets.clear();
    for (let i = 0; i < 5; i += 1) await httpCall({ url: `${base}/`, method: 'GET', timeoutMs: 2000 });
    // At most the first call opens one (the previous test's connection may still be free for it).
    expect(sockets.size).toBeLessThanOrEqual(1);
    for (let i = 0; i < 5; i += 1) await httpCall({ url: `${base}/`, method: 'GET', timeoutMs: 2000 });
    expect(sockets.size).toBeLessThanOrEqual(1);
  });

  it('fails `timeout` when the answer is not complete in time', async () => {
    handler = (_req, res) => {
      res.write('partial');
      const late = setTimeout(() => res.end(), 1000);
      res.on('close', () => clearTimeout(late));
    };
    const error = await failure(httpCall({ url: `${base}/`, method: 'GET', timeoutMs: 100 }));
    expect(error).toBeInstanceOf(HttpCallError);
    expect(error.kind).toBe('timeout');
  });

  it('fails `network` when the connection is refused or dropped', async () => {
    const refused = await failure(httpCall({ url: 'http://127.0.0.1:1/', method: 'GET', timeoutMs: 2000 }));
    expect(refused.kind).toBe('network');
    handler = (req) => req.socket.destroy();
    const dropped = await failure(httpCall({ url: `${base}/`, method: 'POST', body: '{}', timeoutMs: 2000 }));
    expect(dropped.kind).toBe('network');
  });

  it('fails `too_large` past the limit, declared or streamed', async () => {
    handler = (_req, res) => res.end('x'.repeat(100));
    const declared = await failure(httpCall({ url: `${base}/`, method: 'GET', timeoutMs: 2000, maxResponseBytes: 10 }));
    expect([declared.kind, declared.status]).toEqual(['too_large', 200]);
    handler = (_req, res) => {
      res.write('x'.repeat(50));
      res.end('x'.repeat(50));
    };
    const streamed = await failure(httpCall({ url: `${base}/`, method: 'GET', timeoutMs: 2000, maxResponseBytes: 60 }));
    expect(streamed.kind).toBe('too_large');
  });

  it('answers with the first bytes only when told to read at most that many', async () => {
    handler = (_req, res) => {
      res.writeHead(202);
      res.write('x'.repeat(3000));
      // Ends late: the call answers once it has read enough, without waiting for the rest.
      const late = setTimeout(() => res.end('y'.repeat(3000)), 1500);
      res.on('close', () => clearTimeout(late));
    };
    const answer = await httpCall({ url: `${base}/`, method: 'GET', timeoutMs: 1000, readAtMost: 100 });
    expect(answer.status).toBe(202);
    expect(answer.bytes.toString()).toBe('x'.repeat(100));
    handler = (_req, res) => res.end('short');
    expect(
      (await httpCall({ url: `${base}/`, method: 'GET', timeoutMs: 1000, readAtMost: 100 })).bytes.toString(),
    ).toBe('short');
  });
});
