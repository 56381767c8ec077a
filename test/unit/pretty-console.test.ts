import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { consoleObject, prettyConsole } from '../../src/pretty-console';

/**
 * The development console (`LOG_FORMAT=pretty`, what `npm run dev` sets on a terminal): pino-pretty renders each line,
 * a request is one short line (or none), the SDK's webpack report one line; production refuses it and writes JSON.
 */
const root = join(__dirname, '..', '..');

/** A logger writing through the pretty console into `lines`, uncoloured. */
function consoleLogger(requests: 'all' | 'errors' | 'none' = 'all') {
  const lines: string[] = [];
  const logger = pino(
    { name: 'shipping-label-api', base: { service: 'shipping-label-api' } },
    prettyConsole({ requests, colorize: false, write: (text) => lines.push(...text.trimEnd().split('\n')) }),
  );
  return { logger, lines };
}

const request = (status: number, extra: Record<string, unknown> = {}) => ({
  request_id: 'req_4f8Hk2Lm9Qz3Xc7Vb1Nd5Tw0',
  method: 'POST',
  route: '/v1/labels',
  path: '/v1/labels',
  status,
  error_code: null,
  store_id: 'st_1',
  api_key_id: 'ak_1',
  ms: 153.4,
  ...extra,
});

describe('the pretty console', () => {
  it('shows a request as one short line: method, path, status, error code, time taken', () => {
    const { logger, lines } = consoleLogger();
    logger.info(request(201), 'request');
    logger.info(request(422, { error_code: 'validation_error', ms: 2.25 }), 'request');
    expect(lines).toEqual([
      expect.stringMatching(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO \(api\): POST \/v1\/labels 201 153 ms$/),
      expect.stringMatching(
        /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO \(api\): POST \/v1\/labels 422 validation_error 2\.3 ms$/,
      ),
    ]);
  });

  it('names the request of a 5xx, so its error line is found', () => {
    const { logger, lines } = consoleLogger();
    logger.info(request(500, { error_code: 'internal_error' }), 'request');
    expect(lines[0]).toMatch(/POST \/v1\/labels 500 internal_error 153 ms$/);
    expect(lines.slice(1).join('\n')).toContain('request_id: "req_4f8Hk2Lm9Qz3Xc7Vb1Nd5Tw0"');
  });

  it('shows only the requests answered 4xx or 5xx with LOG_REQUESTS=errors, none with none', () => {
    const errors = consoleLogger('errors');
    errors.logger.info(request(200), 'request');
    errors.logger.info(request(404, { error_code: 'not_found' }), 'request');
    expect(errors.lines).toHaveLength(1);
    expect(errors.lines[0]).toContain('404 not_found');
    const none = consoleLogger('none');
    none.logger.info(request(500), 'request');
    none.logger.warn('carrier protection refused the carrier call');
    expect(none.lines).toEqual([expect.stringContaining('WARN (api): carrier protection refused the carrier call')]);
  });

  it("keeps other lines' fields, and errors' stacks", () => {
    const { logger, lines } = consoleLogger();
    logger.error({ request_id: 'req_1', err: new Error('boom') }, 'unhandled error');
    expect(lines[0]).toMatch(/ERROR \(api\): unhandled error$/);
    expect(lines.join('\n')).toContain('request_id: "req_1"');
    expect(lines.join('\n')).toContain('Error: boom');
  });

  it("shows the SDK's webpack report as its last line, and its metadata only on warnings and errors", () => {
    const report = consoleObject(
      {
        level: 30,
        name: 'shipping-label-worker',
        sdk: { sdkComponent: 'worker', taskQueue: 'shipping-label-api' },
        msg: 'asset workflow-bundle.js 2.09 MiB [emitted]\nruntime modules 883 bytes\nwebpack 5.112.2 compiled successfully in 941 ms',
      },
      'all',
    );
    expect(report).toEqual({
      level: 30,
      name: 'worker',
      msg: 'webpack 5.112.2 compiled successfully in 941 ms (2 more lines with LOG_FORMAT=json)',
    });
    const state = consoleObject(
      { level: 30, name: 'shipping-label-worker', sdk: { sdkComponent: 'worker', state: 'RUNNING' }, msg: 'x' },
      'all',
    );
    expect(state).toMatchObject({ sdk: { state: 'RUNNING' } });
    const failed = consoleObject(
      { level: 50, name: 'shipping-label-worker', sdk: { sdkComponent: 'worker', workflowId: 'w' }, msg: 'x' },
      'all',
    );
    expect(failed).toMatchObject({ sdk: { sdkComponent: 'worker', workflowId: 'w' } });
  });

  it('passes through a line that is not JSON', () => {
    const lines: string[] = [];
    prettyConsole({ requests: 'all', colorize: false, write: (text) => lines.push(text) }).write('plain text\n');
    expect(lines).toEqual(['plain text\n']);
  });
});

describe('LOG_FORMAT', () => {
  it('is JSON unless asked, and production refuses pretty', () => {
    expect(loadConfig({}).log).toEqual({ format: 'json', requests: 'all' });
    expect(loadConfig({ LOG_FORMAT: 'pretty', LOG_REQUESTS: 'errors' }).log).toEqual({
      format: 'pretty',
      requests: 'errors',
    });
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        LOG_FORMAT: 'pretty',
        CURSOR_SECRET: 'a'.repeat(64),
        SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      }),
    ).toThrow(/LOG_FORMAT: pretty is for people at a terminal in development; production logs JSON/);
  });

  it('writes the same JSON lines as before when not pretty', async () => {
    const script = `
      const { createLogger } = require(${JSON.stringify(join(root, 'src', 'logger.ts'))});
      createLogger('info', 'shipping-label-api').info({ request_id: 'req_1', status: 200 }, 'request');`;
    const output = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.on('close', () => resolve(text));
    });
    expect(JSON.parse(output)).toEqual({
      level: 30,
      time: expect.any(Number),
      service: 'shipping-label-api',
      name: 'shipping-label-api',
      request_id: 'req_1',
      status: 200,
      msg: 'request',
    });
  }, 20_000);
});

/** What `script` (a module that sends 'ready' once it listens) prints when it gets SIGUSR2, until it exits. */
async function printedOnSignal(script: string): Promise<string> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  await new Promise((resolve) => child.once('message', resolve));
  child.kill('SIGUSR2');
  await new Promise((resolve) => child.once('close', resolve));
  return text;
}

describe('the banner of npm run dev and npm run cluster', () => {
  it('is printed again on SIGUSR2', async () => {
    const script = `
      const { keepBannerAtHand } = await import(${JSON.stringify(join(root, 'scripts', 'lib', 'banner.mjs'))});
      process.stdout.write('BANNER\\n');
      const release = keepBannerAtHand('BANNER\\n');
      process.send('ready');
      setTimeout(() => { release(); process.exit(0); }, 1500);`;
    const text = await printedOnSignal(script);
    expect(text).toBe('BANNER\nBANNER\n');
  }, 20_000);

  it('is rendered anew when printed again: fresh orders labelled since say so', async () => {
    const script = `
      const { freshOrdersText, keepBannerAtHand } = await import(${JSON.stringify(join(root, 'scripts', 'lib', 'banner.mjs'))});
      const orders = [{ name: '#1013', kind: 'home', order_id: '1' }, { name: '#1014', kind: 'cod', order_id: '2' }];
      const print = { write: (text) => { process.stdout.write(text); process.exit(0); } };
      keepBannerAtHand(async () => freshOrdersText(orders, new Set(['2'])) + '\\n', { output: print });
      // Alive until the signal's reprint exits it.
      setInterval(() => {}, 1000);
      process.send('ready');`;
    const text = await printedOnSignal(script);
    expect(text).toBe(
      [
        '#1013  home delivery     order_id 1',
        '#1014  cash on delivery  order_id 2  (has a label now)',
        'more: node bin/labelctl.js demo orders add',
        '',
      ].join('\n'),
    );
  }, 20_000);
});
