import globalSetup from '../helpers/global-setup';
import globalTeardown from '../helpers/global-teardown';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Runs a recording script's body against what the integration tests start (a Temporal dev server, a fresh database,
 * the sandbox and a worker, then the app with `options`), ends all of it, and exits 1 with the stack when the body fails.
 */
export function recordHistories(
  body: (app: TestApp) => Promise<void>,
  options: Parameters<typeof startTestApp>[0] = {},
): void {
  const run = async () => {
    await globalSetup();
    const app = await startTestApp(options);
    try {
      await body(app);
    } finally {
      await app.close();
      await globalTeardown();
    }
  };
  run().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
