import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../test/helpers/processes';

/**
 * The API from the compiled build (`dist/src/server.js`, as `npm start` runs it) in its own process, against the test
 * run's database, Temporal server and sandbox (the environment `startTestRun` left in `process.env`): the creation
 * bench sends its requests there, so the API neither runs from the sources nor shares the load generator's event loop.
 */
export async function startCompiledApi(): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const port = await freePort();
  // BENCH_CPU_PROF=<dir>: a V8 profile of the API too, written when it exits on SIGTERM.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  const child = spawn(process.execPath, [...profile, join(__dirname, '..', '..', 'dist', 'src', 'server.js')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the compiled API exited with ${code}`)));
    child.on('message', (message: { type?: string }) => message?.type === 'ready' && resolve());
  });
  child.removeAllListeners('exit');
  child.disconnect();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
