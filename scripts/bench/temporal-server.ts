/**
 * The creation benchmark's Temporal server on PostgreSQL: the server `npm run cluster` runs (scripts/lib/
 * temporal-cluster.mjs), on two databases of its own on the run's PostgreSQL server, set up with the project's setup
 * step. Dropped again by `stop`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { connectTemporal } from '../../src/temporal/connection';
import { setupTemporal } from '../../src/temporal/namespace-setup';
import { freePort, stop as stopChild, waitForPort } from '../../test/helpers/processes';

export interface BenchTemporalServer {
  address: string;
  stop(): Promise<void>;
}

export async function startBenchTemporalServer(serverUrl: string): Promise<BenchTemporalServer> {
  const cluster = await import('../lib/temporal-cluster.mjs');
  const binaries = cluster.findTemporalServer();
  if (!binaries) throw new Error('the Temporal server could not be found or built (see above)');
  const name = `sla_bench_temporal_${process.pid}_${Date.now()}`;
  const databases = { temporal: name, visibility: `${name}_visibility` };
  const postgres = cluster.postgresEndpoint(serverUrl);
  cluster.setUpTemporalSchemas({ sqlTool: binaries.sqlTool, postgres, databases });
  const dir = mkdtempSync(join(tmpdir(), 'sla-bench-temporal-server-'));
  const frontend = await freePort();
  const taken = [frontend];
  const service = async () => {
    const port = await cluster.freeServicePort(taken);
    taken.push(port);
    return port;
  };
  const ports = {
    frontend,
    frontendHttp: await service(),
    frontendMembership: await service(),
    history: await service(),
    historyMembership: await service(),
    matching: await service(),
    matchingMembership: await service(),
    worker: await service(),
    workerMembership: await service(),
    metrics: await service(),
  };
  const args = cluster.temporalServerFiles({
    dir,
    config: cluster.temporalServerConfig({
      postgres,
      databases,
      ports,
      dynamicConfigFile: join(dir, 'dynamicconfig.yaml'),
      logLevel: 'error',
    }),
    dynamicConfig: cluster.temporalDynamicConfig(),
  });
  const log = openSync(join(dir, 'server.log'), 'a');
  const server = spawn(binaries.server, args, { stdio: ['ignore', log, log] });
  const address = `127.0.0.1:${ports.frontend}`;
  const stop = async () => {
    await stopChild(server);
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    for (const database of [databases.temporal, databases.visibility])
      await admin.query(`drop database if exists "${database}" with (force)`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(ports.frontend, 'Temporal server', server);
    const client = await connectTemporal({ address, namespace: 'default', tls: undefined, apiKey: undefined }, 60_000);
    await setupTemporal(client.connection, { namespace: 'default', retentionMs: 86_400_000 });
    await client.connection.close();
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, stop };
}
