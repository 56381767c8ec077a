import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { step } from './log.mjs';
import { projectRoot } from './paths.mjs';
import { waitForPort } from './ports.mjs';

const searchAttributes = JSON.parse(readFileSync(join(projectRoot, 'src/temporal/search-attributes.json'), 'utf8'));
// One task-queue partition: a single-node dev server gains nothing from more, and tasks forwarded between partitions
// cost it CPU and latency (docs/decisions/0022-dev-server-partitions.md).
const dynamicConfig = JSON.parse(readFileSync(join(projectRoot, 'src/temporal/dev-server-config.json'), 'utf8'));

/**
 * Starts `temporal server start-dev` and waits for its gRPC port ourselves: the SDK's own launcher gives up
 * after 5 seconds, which a cold start on a small machine can exceed.
 */
export async function startTemporalServer({
  cli,
  port,
  uiPort,
  httpPort,
  metricsPort,
  dbFile,
  namespace = 'default',
  logFile,
}) {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'warn',
    '--namespace',
    namespace,
  ];
  if (uiPort) args.push('--ui-port', String(uiPort));
  else args.push('--headless');
  if (httpPort) args.push('--http-port', String(httpPort));
  if (metricsPort) args.push('--metrics-port', String(metricsPort));
  if (dbFile) args.push('--db-filename', dbFile);
  for (const [key, type] of Object.entries(searchAttributes)) args.push('--search-attribute', `${key}=${type}`);
  for (const [key, value] of Object.entries(dynamicConfig))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);

  const child = spawn(cli, args, {
    cwd: projectRoot,
    stdio: ['ignore', logFile ?? 'ignore', logFile ?? 'inherit'],
    detached: false,
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  await waitForPort(port, { what: 'Temporal dev server', timeoutMs: 120_000, alive: () => !exited });
  step(`Temporal dev server on 127.0.0.1:${port}${uiPort ? `, Web UI on http://127.0.0.1:${uiPort}` : ''}`);
  return child;
}
