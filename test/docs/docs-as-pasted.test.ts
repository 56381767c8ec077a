import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../helpers/processes';
import {
  outputMatches,
  runnableBlocks,
  runnablePages,
  withPorts,
  type RunnableBlock,
  type Step,
} from '../helpers/runnable-docs';

/**
 * Every command the README and docs/ mark runnable, run as a newcomer pastes it (decision 0040): a fresh checkout of
 * this one's files, `npm run dev` started in it as the README says, then each ```sh runnable block in one bash, page
 * after page, in the pages' order; each printed answer must be what the page shows. The only change to the text is
 * the ports: the stack listens on free ones, not on 3000, 4010, 8233 and 7233, which a running `npm run dev` may hold.
 */
const root = join(__dirname, '..', '..');
const STEP_TIMEOUT_MS = 180_000;
/** How long a `retry` block is run again for; a minute's resolve wait under `npm run dev` fits well inside it. */
const RETRY_DEADLINE_MS = 150_000;
const RETRY_INTERVAL_MS = 2_000;

interface Ready {
  base_url: string;
  api_key: string;
  database_url: string;
}

let checkout: string;
let dev: ChildProcess | undefined;
let devOutput = '';
let ready: Ready;
let ports: Record<number, number>;

/** This checkout's files (tracked and new, as git lists them) in a directory of their own; node_modules linked. */
function freshCheckout(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'docs-as-pasted-')), 'shipping-label-api');
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const from = join(root, file);
    if (!existsSync(from) || statSync(from).isDirectory()) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(from, join(dir, file));
  }
  // The dependencies `npm ci` would install, shared; its compile caches (node_modules/.cache) stay the copy's own.
  mkdirSync(join(dir, 'node_modules'));
  for (const entry of readdirSync(join(root, 'node_modules')).filter((name) => name !== '.cache'))
    symlinkSync(join(root, 'node_modules', entry), join(dir, 'node_modules', entry));
  return dir;
}

/** What a newcomer's shell has: no setting of the test run that would point labelctl or the service elsewhere. */
function newcomerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'USER', 'LANG', 'TMPDIR', 'XDG_CACHE_HOME', 'TEMPORAL_CLI_PATH', 'PGUSER'])
    if (process.env[name]) env[name] = process.env[name];
  return { ...env, ...extra };
}

async function startDev(): Promise<void> {
  const chosen = {
    PORT: await freePort(),
    SANDBOX_PORT: await freePort(),
    TEMPORAL_PORT: await freePort(),
    TEMPORAL_UI_PORT: await freePort(),
    WORKER_METRICS_PORT: await freePort(),
  };
  ports = {
    3000: chosen.PORT,
    4010: chosen.SANDBOX_PORT,
    7233: chosen.TEMPORAL_PORT,
    8233: chosen.TEMPORAL_UI_PORT,
  };
  // Its own process group: the test ends dev and everything it started, also if dev itself fails to.
  dev = spawn(process.execPath, [join(checkout, 'scripts', 'dev.mjs')], {
    cwd: checkout,
    detached: true,
    env: newcomerEnv({
      ...Object.fromEntries(Object.entries(chosen).map(([k, v]) => [k, String(v)])),
      LOG_LEVEL: 'warn',
      // The pages say a minute; the test waits for the state, so a shorter wait only makes it quicker.
      RESOLVE_ALLOWED_AFTER: '10s',
    }),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const collect = (chunk: Buffer) => (devOutput = (devOutput + chunk.toString()).slice(-30_000));
  dev.stdout!.on('data', collect);
  dev.stderr!.on('data', collect);
  ready = await new Promise<Ready>((resolve, reject) => {
    dev!.once('exit', (code) => reject(new Error(`npm run dev exited with ${code}:\n${devOutput}`)));
    dev!.on('message', (message: { type?: string } & Ready) => message?.type === 'ready' && resolve(message));
  });
}

/** One bash a newcomer types into: `run` pastes a step and returns what it printed and its exit status. */
class Shell {
  private readonly bash: ChildProcess;
  private stdout = '';
  private readonly stderrFile: string;
  private count = 0;

  constructor(cwd: string) {
    this.stderrFile = join(dirname(cwd), 'step.stderr');
    this.bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env: newcomerEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    this.bash.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.bash.stderr!.resume();
    this.bash.stdin!.write('set -o pipefail\n');
  }

  run(commands: string): Promise<{ output: string; stderr: string; status: number }> {
    const marker = `__docs_step_${(this.count += 1)}__`;
    this.stdout = '';
    this.bash.stdin!.write(
      `{\n${commands}\n} < /dev/null 2> ${JSON.stringify(this.stderrFile)}; printf '\\n${marker} %s\\n' "$?"\n`,
    );
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        const at = this.stdout.indexOf(`\n${marker} `);
        const end = at === -1 ? -1 : this.stdout.indexOf('\n', at + marker.length + 2);
        if (end !== -1) {
          clearInterval(poll);
          const status = Number(this.stdout.slice(at + marker.length + 2, end));
          const stderr = existsSync(this.stderrFile) ? readFileSync(this.stderrFile, 'utf8') : '';
          resolve({ output: this.stdout.slice(0, at), stderr, status });
        } else if (this.bash.exitCode !== null || Date.now() - started > STEP_TIMEOUT_MS) {
          clearInterval(poll);
          reject(new Error(`the shell ${this.bash.exitCode !== null ? 'exited' : 'did not finish'}:\n${this.stdout}`));
        }
      }, 50);
    });
  }

  close(): void {
    this.bash.stdin!.destroy();
    this.bash.kill('SIGKILL');
  }
}

/** Why a step answered other than its page says; null when it answered so. */
async function failureOf(shell: Shell, block: RunnableBlock, step: Step): Promise<string | null> {
  const { output, stderr, status } = await shell.run(withPorts(step.commands, ports));
  const expected = step.expected?.map((line) => withPorts(line, ports)) ?? null;
  if (status === 0 && (expected === null || outputMatches(expected, output))) return null;
  return [
    `${block.file}:${block.line}: ${status === 0 ? 'answered other than the page says' : `exited with ${status}`}`,
    step.commands,
    ...(expected ? ['--- the page shows:', ...expected] : []),
    '--- it printed:',
    output,
    ...(stderr ? ['--- stderr:', stderr] : []),
  ].join('\n');
}

async function runBlock(shell: Shell, block: RunnableBlock): Promise<void> {
  const deadline = Date.now() + RETRY_DEADLINE_MS;
  for (;;) {
    let failure: string | null = null;
    for (const step of block.steps) {
      failure = await failureOf(shell, block, step);
      if (failure) break;
    }
    if (!failure) return;
    if (!block.retry || Date.now() > deadline) throw new Error(failure);
    await new Promise((resolve) => setTimeout(resolve, RETRY_INTERVAL_MS));
  }
}

const blocks = runnablePages(root).flatMap((page) => runnableBlocks(page, readFileSync(join(root, page), 'utf8')));
let shell: Shell;

beforeAll(async () => {
  if (spawnSync('jq', ['--version']).status !== 0)
    throw new Error('the README uses jq: install it (apt-get install jq)');
  checkout = freshCheckout();
  await startDev();
  shell = new Shell(checkout);
}, 600_000);

afterAll(async () => {
  shell?.close();
  if (dev?.pid && dev.exitCode === null) {
    const exited = new Promise((resolve) => dev!.once('exit', resolve));
    process.kill(-dev.pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 60_000)))]);
    clearTimeout(timer);
    try {
      process.kill(-dev.pid, 'SIGKILL');
    } catch {
      // Everything it started has ended.
    }
  }
  if (ready?.database_url) {
    const url = new URL(ready.database_url);
    const name = decodeURIComponent(url.pathname.slice(1));
    url.pathname = '/postgres';
    const admin = new Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`drop database if exists "${name.replace(/"/g, '""')}" with (force)`);
    await admin.end();
  }
  if (checkout) rmSync(dirname(checkout), { recursive: true, force: true });
}, 120_000);

it('marks examples runnable on the README and in docs/', () => {
  expect(blocks.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(3);
  expect(new Set(blocks.map((b) => b.file)).size).toBeGreaterThanOrEqual(4);
});

it('npm run dev prints its database, named after the checkout, and the resolve wait', () => {
  expect(devOutput).toMatch(/Database\s+postgres:\/\/\S+\/sla_dev_shipping_label_api_[0-9a-f]{6}\n/);
  expect(devOutput).toMatch(/Resolve wait\s+not_created is accepted 10s after the carrier call/);
  expect(ready.base_url).toBe(`http://127.0.0.1:${ports[3000]}/v1`);
});

// One test per block, in the pages' order: a block that answers other than its page says fails with what it printed.
it.each(blocks.map((block) => [`${block.file}:${block.line}`, block] as const))(
  '%s answers as the page says',
  async (_where, block) => {
    await runBlock(shell, block);
  },
  RETRY_DEADLINE_MS + STEP_TIMEOUT_MS,
);
