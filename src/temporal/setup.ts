import { loadConfig } from '../config';
import { formatDuration } from '../duration';
import { connectTemporal } from './connection';
import { setupTemporal } from './namespace-setup';

// `npm run temporal:setup` (compiled: `node dist/src/temporal/setup.js`): the namespace and the search attributes the
// workflows need, on the configured Temporal server. Idempotent: every deploy runs it before the workers start.
async function main(): Promise<void> {
  const config = loadConfig();
  const { namespace, namespaceRetentionMs } = config.temporal;
  const client = await connectTemporal(config.temporal, 60_000);
  try {
    const report = await setupTemporal(client.connection, { namespace, retentionMs: namespaceRetentionMs });
    const lines = [
      `namespace ${namespace} ${report.namespace === 'created' ? `created (retention ${formatDuration(namespaceRetentionMs)})` : 'exists'}`,
      report.added.length ? `registered search attributes ${report.added.join(', ')}` : 'search attributes registered',
    ];
    if (report.retentionDiffersMs !== undefined)
      lines.push(
        `note: the namespace keeps histories ${formatDuration(report.retentionDiffersMs)}, TEMPORAL_NAMESPACE_RETENTION ` +
          `says ${formatDuration(namespaceRetentionMs)}; the setup leaves an existing namespace as it is ` +
          `(temporal operator namespace update --namespace ${namespace} --retention ...)`,
      );
    for (const line of lines) process.stderr.write(`[temporal-setup] ${line}\n`);
  } finally {
    await client.connection.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[temporal-setup] ${(error as Error).message}\n`);
  process.exit(1);
});
