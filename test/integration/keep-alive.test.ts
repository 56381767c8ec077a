import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { loadConfig } from '../../src/config';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** A GET on one kept-alive connection of `agent`: the answer's status and headers, and the local port it went from. */
function get(agent: http.Agent, url: string): Promise<{ status: number; keepAlive: string | undefined; port: number }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          keepAlive: response.headers['keep-alive'] as string | undefined,
          port: request.socket!.localPort!,
        }),
      );
    });
    request.on('error', reject);
  });
}

/** Milliseconds from an answered request until the server closes the raw connection it came on. */
function closedAfter(baseUrl: string): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname);
    let answeredAt = 0;
    socket.on('data', (chunk: Buffer) => {
      if (!answeredAt && chunk.includes('\r\n\r\n')) answeredAt = Date.now();
    });
    socket.on('close', () => (answeredAt ? resolve(Date.now() - answeredAt) : reject(new Error('closed unanswered'))));
    socket.on('error', reject);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
  });
}

// Decision 0030: an idle client connection stays open 65 s (longer than a load balancer's 60 s), announced to clients.
describe('kept-alive connections', () => {
  let app: TestApp;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    agent.destroy();
    await app.close();
  });

  it('keeps an idle connection open past Node’s 5 s and announces 65 s', async () => {
    const first = await get(agent, `${app.baseUrl}/healthz`);
    expect(first).toMatchObject({ status: 200, keepAlive: 'timeout=65' });
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    // The same connection answers: the server did not close it after Node's default 5 s.
    const second = await get(agent, `${app.baseUrl}/healthz`);
    expect(second).toMatchObject({ status: 200, keepAlive: 'timeout=65' });
    expect(second.port).toBe(first.port);
  }, 20_000);

  it('closes an idle connection after HTTP_KEEP_ALIVE_TIMEOUT', async () => {
    const short = await startTestApp({ env: { HTTP_KEEP_ALIVE_TIMEOUT: '1s' } });
    try {
      const answer = await get(agent, `${short.baseUrl}/healthz`);
      expect(answer.keepAlive).toBe('timeout=1');
      const idle = await closedAfter(short.baseUrl);
      expect(idle).toBeGreaterThanOrEqual(900);
      expect(idle).toBeLessThan(4_000);
    } finally {
      await short.close();
    }
  }, 20_000);

  it('refuses a keep-alive timeout under a second or over fifteen minutes at start', () => {
    expect(loadConfig({}).keepAliveTimeoutMs).toBe(65_000);
    expect(loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT: '2m' }).keepAliveTimeoutMs).toBe(120_000);
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT: '500ms' })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT/);
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT: '16m' })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT/);
  });
});
