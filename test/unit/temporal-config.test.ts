import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { connectionOptions } from '../../src/temporal/connection';
import { workerTuning } from '../../src/temporal/worker-tuning';

// Temporal connection settings for a real cluster (mTLS) and Temporal Cloud (API key), and the worker's tuning.
let dir: string;
const pemFile = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'temporal-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Temporal connection settings', () => {
  it('connect in plain gRPC without any TLS setting or API key (a local server)', () => {
    const { temporal } = loadConfig({});
    expect(temporal).toMatchObject({
      address: '127.0.0.1:7233',
      namespace: 'default',
      taskQueue: 'shipping-label-api',
    });
    expect(temporal.tls).toBeUndefined();
    expect(temporal.apiKey).toBeUndefined();
    expect(connectionOptions(temporal)).toEqual({ address: '127.0.0.1:7233', tls: false });
  });

  it('read the CA, the client certificate and its key from their files, with the server name (mTLS)', () => {
    const { temporal } = loadConfig({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'labels',
      TEMPORAL_TASK_QUEUE: 'labels-prod',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: pemFile('ca.pem', 'CA PEM'),
      TEMPORAL_TLS_CLIENT_CERT_PATH: pemFile('client.pem', 'CLIENT PEM'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: pemFile('client.key', 'KEY PEM'),
      TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.internal',
    });
    expect(temporal).toMatchObject({
      address: 'temporal.internal:7233',
      namespace: 'labels',
      taskQueue: 'labels-prod',
    });
    expect(temporal.tls).toEqual({
      serverNameOverride: 'frontend.temporal.internal',
      serverRootCACertificate: Buffer.from('CA PEM'),
      clientCertPair: { crt: Buffer.from('CLIENT PEM'), key: Buffer.from('KEY PEM') },
    });
    expect(connectionOptions(temporal)).toEqual({ address: 'temporal.internal:7233', tls: temporal.tls });
  });

  it('take the PEMs as values too (the _DATA twins, for secrets passed in the environment)', () => {
    const { temporal } = loadConfig({
      TEMPORAL_TLS_CLIENT_CERT_DATA: 'CLIENT PEM',
      TEMPORAL_TLS_CLIENT_KEY_DATA: 'KEY PEM',
    });
    expect(temporal.tls).toEqual({ clientCertPair: { crt: Buffer.from('CLIENT PEM'), key: Buffer.from('KEY PEM') } });
  });

  it('turn TLS on with the system roots for a Temporal Cloud API key, and send the key', () => {
    const { temporal } = loadConfig({
      TEMPORAL_ADDRESS: 'labels.a1b2c.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'labels.a1b2c',
      TEMPORAL_API_KEY: 'cloud-api-key',
    });
    expect(temporal.tls).toEqual({});
    expect(connectionOptions(temporal)).toEqual({
      address: 'labels.a1b2c.tmprl.cloud:7233',
      tls: {},
      apiKey: 'cloud-api-key',
    });
  });

  it('combine an API key with TLS settings, and TEMPORAL_TLS=true alone means TLS with the system roots', () => {
    const both = loadConfig({
      TEMPORAL_API_KEY: 'key',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: pemFile('ca2.pem', 'CA 2'),
    }).temporal;
    expect(connectionOptions(both)).toEqual({
      address: '127.0.0.1:7233',
      tls: { serverRootCACertificate: Buffer.from('CA 2') },
      apiKey: 'key',
    });
    expect(loadConfig({ TEMPORAL_TLS: 'true' }).temporal.tls).toEqual({});
  });

  it('keep TLS off with TEMPORAL_TLS=false and an API key (a proxy that terminates TLS)', () => {
    const { temporal } = loadConfig({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'key' });
    expect(connectionOptions(temporal)).toEqual({ address: '127.0.0.1:7233', tls: false, apiKey: 'key' });
  });

  it.each([
    [
      'a certificate without its key',
      { TEMPORAL_TLS_CLIENT_CERT_DATA: 'CLIENT PEM' },
      'mTLS needs both the certificate and the key',
    ],
    [
      'a file that cannot be read',
      { TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/nonexistent/ca.pem' },
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read /nonexistent/ca.pem (ENOENT)',
    ],
    [
      'a path and a value for the same PEM',
      { TEMPORAL_TLS_CLIENT_KEY_PATH: '/k', TEMPORAL_TLS_CLIENT_KEY_DATA: 'KEY', TEMPORAL_TLS_CLIENT_CERT_DATA: 'C' },
      'TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_CLIENT_KEY_DATA: set one of them, not both',
    ],
    [
      'certificates with TLS turned off',
      { TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_NAME: 'frontend' },
      'TEMPORAL_TLS: false, but TLS certificates or a server name are set',
    ],
    ['a TEMPORAL_TLS that is not true or false', { TEMPORAL_TLS: 'yes' }, 'TEMPORAL_TLS'],
  ])('refuse %s', (_, env, message) => {
    expect(() => loadConfig(env)).toThrow('invalid configuration');
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('worker tuning', () => {
  it("keeps the SDK's defaults when nothing is configured but the measured sticky cache, with a shutdown grace longer than a carrier call", () => {
    const config = loadConfig({});
    expect(workerTuning(config.worker)).toEqual({ maxCachedWorkflows: 1000, shutdownGraceTime: 15_000 });
    expect(config.worker.shutdownGraceTimeMs).toBeGreaterThan(config.carrierTimeoutMs);
  });

  it('passes every configured limit and the sticky cache size to Worker.create', () => {
    const config = loadConfig({
      WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '20',
      WORKER_MAX_CONCURRENT_ACTIVITIES: '50',
      WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES: '30',
      WORKER_MAX_CACHED_WORKFLOWS: '0',
      WORKER_SHUTDOWN_GRACE_TIME: '1m',
    });
    expect(workerTuning(config.worker)).toEqual({
      maxConcurrentWorkflowTaskExecutions: 20,
      maxConcurrentActivityTaskExecutions: 50,
      maxConcurrentLocalActivityExecutions: 30,
      maxCachedWorkflows: 0,
      shutdownGraceTime: 60_000,
    });
  });

  it.each([
    ['WORKER_MAX_CONCURRENT_WORKFLOW_TASKS', '1'],
    ['WORKER_MAX_CONCURRENT_ACTIVITIES', '0'],
    ['WORKER_MAX_CACHED_WORKFLOWS', '-1'],
    ['WORKER_SHUTDOWN_GRACE_TIME', 'soon'],
  ])('refuses %s=%s', (name, value) => expect(() => loadConfig({ [name]: value })).toThrow(name));
});
