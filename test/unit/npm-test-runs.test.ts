import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// `npm test`'s jest runs (scripts/lib/jest-runs.mjs), its files side by side (scripts/lib/jest-workers.mjs) and its
// load check (scripts/lib/busy.mjs) and its Temporal server lookup (scripts/lib/temporal-cluster.mjs): plain ESM of the
// scripts, called in a Node of their own.
const root = join(__dirname, '..', '..');
function call(module: string, expression: string): any {
  const script = `import * as m from ${JSON.stringify(join(root, 'scripts/lib', module))};
    let out; try { out = await (async () => ${expression})(); } catch (e) { out = { thrown: e.message }; }
    process.stdout.write(JSON.stringify(out));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

const PROJECTS = ['unit', 'integration', 'integration-shopify', 'cluster'];
const plan = (args: string[]) =>
  call('jest-runs.mjs', `m.planJestRuns(${JSON.stringify(args)}, ${JSON.stringify(PROJECTS)})`);
const runs = (args: string[]) =>
  (plan(args).runs as Array<{ name: string; args: string[] }>).map((r) => [r.name, r.args]);

describe('npm test: the jest runs', () => {
  it('runs the unit project first, then the others, then the cluster alone; each passes with no tests, all together may not', () => {
    expect(plan(['-t', 'rotation'])).toEqual({
      requireTests: true,
      runs: [
        {
          name: 'unit',
          projects: ['unit'],
          args: ['--selectProjects', 'unit', '--passWithNoTests', '-t', 'rotation'],
        },
        {
          name: 'servers',
          projects: ['integration', 'integration-shopify'],
          args: ['--selectProjects', 'integration', 'integration-shopify', '--passWithNoTests', '-t', 'rotation'],
        },
        {
          name: 'cluster',
          projects: ['cluster'],
          args: ['--selectProjects', 'cluster', '--passWithNoTests', '-t', 'rotation'],
        },
      ],
    });
  });

  it.each([
    [['--selectProjects', 'integration'], [['servers', ['--selectProjects', 'integration']]]],
    [['--selectProjects=unit', 'test/unit/ids'], [['unit', ['--selectProjects', 'unit', 'test/unit/ids']]]],
    [
      ['test/integration/access', '--select-projects', 'cluster', 'unit'],
      [
        ['unit', ['--selectProjects', 'unit', '--passWithNoTests', 'test/integration/access']],
        ['cluster', ['--selectProjects', 'cluster', '--passWithNoTests', 'test/integration/access']],
      ],
    ],
    [
      ['--ignoreProjects', 'cluster', 'integration-shopify', '--runInBand'],
      [
        ['unit', ['--selectProjects', 'unit', '--passWithNoTests', '--runInBand']],
        ['servers', ['--selectProjects', 'integration', '--passWithNoTests', '--runInBand']],
      ],
    ],
    [
      ['--ignoreProjects=unit'],
      [
        ['servers', ['--selectProjects', 'integration', 'integration-shopify', '--passWithNoTests']],
        ['cluster', ['--selectProjects', 'cluster', '--passWithNoTests']],
      ],
    ],
  ])('%j starts only the runs its projects need', (args, expected) => {
    expect(runs(args)).toEqual(expected);
  });

  it('keeps a --passWithNoTests given to it, and then fails on no tests no more than jest would', () => {
    const given = plan(['--passWithNoTests', '--selectProjects', 'unit', 'integration']);
    expect(given.requireTests).toBe(false);
    expect(given.runs.map((r: { args: string[] }) => r.args.filter((a) => a === '--passWithNoTests'))).toEqual([
      ['--passWithNoTests'],
      ['--passWithNoTests'],
    ]);
  });

  it('refuses a project jest.config.js does not name, such as a path after --selectProjects', () => {
    expect(plan(['--selectProjects', 'unit', 'test/unit/ids']).error).toMatch(
      /no jest project "test\/unit\/ids" .*unit, integration, integration-shopify, cluster.*path patterns go before/,
    );
    expect(plan(['--selectProjects', 'unit', '--ignoreProjects', 'unit']).error).toMatch(/no jest project left/);
  });

  it('merges the runs’ --json results: counts added, results joined, success only if both succeeded', () => {
    const unit = {
      success: true,
      startTime: 2000,
      numPassedTests: 10,
      numFailedTests: 0,
      numTotalTestSuites: 3,
      testResults: [{ name: 'a' }],
      snapshot: { total: 0, failure: false },
    };
    const servers = {
      success: false,
      startTime: 1000,
      numPassedTests: 5,
      numFailedTests: 2,
      numTotalTestSuites: 4,
      testResults: [{ name: 'b' }],
      snapshot: { total: 1, failure: true },
    };
    expect(call('jest-runs.mjs', `m.mergeJestResults(${JSON.stringify([unit, servers])})`)).toEqual({
      success: false,
      startTime: 1000,
      numPassedTests: 15,
      numFailedTests: 2,
      numTotalTestSuites: 7,
      testResults: [{ name: 'a' }, { name: 'b' }],
      snapshot: { total: 1, failure: true },
    });
  });

  it('names the slowest test files, slowest first, with their share of all files’ time', () => {
    const result = {
      testResults: [
        { name: '/repo/test/unit/a.test.ts', startTime: 0, endTime: 1000, assertionResults: [{}, {}] },
        { name: '/repo/test/integration/b.test.ts', startTime: 0, endTime: 6000, assertionResults: [{}] },
        { name: '/repo/test/integration/c.test.ts', startTime: 500, endTime: 3500, assertionResults: [] },
        { name: '/repo/test/integration/broken.test.ts', assertionResults: [] },
      ],
    };
    expect(call('jest-runs.mjs', `m.slowestSuites(${JSON.stringify(result)}, '/repo', 2)`)).toEqual([
      { file: 'test/integration/b.test.ts', seconds: 6, tests: 1 },
      { file: 'test/integration/c.test.ts', seconds: 3, tests: 0 },
    ]);
    expect(call('jest-runs.mjs', `m.formatSlowestSuites(${JSON.stringify(result)}, '/repo/', 2)`)).toEqual([
      'The 2 slowest test files (of 10 s in all files):',
      '    6.0 s  60%    1 tests  test/integration/b.test.ts',
      '    3.0 s  30%    0 tests  test/integration/c.test.ts',
    ]);
    expect(call('jest-runs.mjs', `m.formatSlowestSuites({ testResults: [] }, '/repo')`)).toEqual([]);
  });
});

describe('npm test: test files side by side', () => {
  const files = (budget: { cores: number; maxConnections: number; reserved: number; inUse: number }) =>
    call('jest-workers.mjs', `m.integrationFiles(${JSON.stringify(budget)})`);

  it.each([
    // 2 cores, PostgreSQL's defaults: 100 - 3 - 10 = 87 connections, three files of 25.
    [{ cores: 2, maxConnections: 100, reserved: 3, inUse: 0 }, 3, 'cores'],
    // Another run holding 40: 47 left, one file.
    [{ cores: 2, maxConnections: 100, reserved: 3, inUse: 40 }, 1, 'connections'],
    [{ cores: 8, maxConnections: 100, reserved: 3, inUse: 0 }, 3, 'connections'],
    [{ cores: 8, maxConnections: 400, reserved: 3, inUse: 5 }, 9, 'cores'],
    [{ cores: 1, maxConnections: 400, reserved: 3, inUse: 0 }, 2, 'cores'],
    // No connections left at all: still one file, which then says so itself.
    [{ cores: 4, maxConnections: 20, reserved: 3, inUse: 19 }, 1, 'connections'],
  ])('%j: %i files, bound by the %s', (budget, count, bound) => {
    const result = files(budget);
    expect(result.count).toBe(count);
    expect(result.bound).toBe(bound);
  });

  it('says why, with the cores, the connections and the share of each file', () => {
    expect(files({ cores: 2, maxConnections: 100, reserved: 3, inUse: 0 }).why).toBe(
      "2 cores, 100 PostgreSQL connections with 3 reserved and 0 in use, ~25 each and 10 for the run's worker: 3 by the cores, 3 by the connections",
    );
  });

  it('runs the unit files side by side by the cores alone: four, or one fewer than the cores', () => {
    expect([1, 2, 4, 5, 16].map((cores) => call('jest-workers.mjs', `m.unitFiles({ cores: ${cores} })`))).toEqual([
      4, 4, 4, 4, 15,
    ]);
  });

  it.each([
    [['--maxWorkers=1'], true],
    [['--maxWorkers', '2'], true],
    [['--max-workers=50%'], true],
    [['-w', '2'], true],
    [['-w2'], true],
    [['--runInBand'], true],
    [['-i'], true],
    [['test/integration/access', '--selectProjects', 'integration'], false],
    [['-t', 'workers'], false],
  ])('%j chooses the workers itself: %s', (args, chooses) => {
    expect(call('jest-workers.mjs', `m.choosesWorkers(${JSON.stringify(args)})`)).toBe(chooses);
  });
});

describe('npm test -- --busy', () => {
  const take = (args: string[], cores = 2) => call('busy.mjs', `m.takeBusyOption(${JSON.stringify(args)}, ${cores})`);

  it.each([
    [[], 2, { busy: 0, args: [] }],
    [['--busy'], 2, { busy: 2, args: [] }],
    [['--busy'], 1, { busy: 2, args: [] }],
    [['--busy'], 8, { busy: 8, args: [] }],
    [['--busy=3'], 2, { busy: 3, args: [] }],
    [
      ['test/integration/render-leases', '--busy', '--selectProjects', 'integration'],
      2,
      { busy: 2, args: ['test/integration/render-leases', '--selectProjects', 'integration'] },
    ],
    [
      ['--selectProjects', 'integration', 'integration-shopify', '--busy=1', '-t', 'busy'],
      2,
      { busy: 1, args: ['--selectProjects', 'integration', 'integration-shopify', '-t', 'busy'] },
    ],
  ])('%j on %i cores', (args, cores, expected) => {
    expect(take(args, cores)).toEqual(expected);
  });

  it('refuses a count that is no whole number from 1', () => {
    for (const arg of ['--busy=0', '--busy=two', '--busy=', '--busy=1.5']) {
      expect(take([arg]).error).toMatch(/the number of CPU-bound processes is a whole number from 1/);
    }
  });

  it('leaves --busy out of the jest runs it plans around the rest', () => {
    const { args } = take(['test/integration/access', '--busy', '--selectProjects', 'integration']);
    expect(runs(args)).toEqual([['servers', ['--selectProjects', 'integration', 'test/integration/access']]]);
  });

  it('starts CPU-bound processes and stops them all', () => {
    const outcome = call(
      'busy.mjs',
      `(async () => {
        const busy = m.startBusy(2);
        const living = () => busy.pids.filter((pid) => { try { process.kill(pid, 0); return true; } catch { return false; } });
        const alive = living();
        const stopped = busy.stop();
        // Until they are gone (a signal is not an instant exit on a busy machine), within a deadline.
        const deadline = Date.now() + 20000;
        while (living().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        const left = living();
        return { started: busy.pids.length, alive: alive.length, stopped, left: left.length, again: busy.stop() };
      })()`,
    );
    expect(outcome).toEqual({ started: 2, alive: 2, stopped: 2, left: 0, again: 0 });
  });
});

describe('npm test: the Temporal server looked for in a Node of its own', () => {
  /** findTemporalServerApart with the binaries named by their variables, as a user may: nothing is built. */
  function apart(server: string, sqlTool: string): unknown {
    const script = `import { findTemporalServerApart } from ${JSON.stringify(join(root, 'scripts/lib/temporal-cluster.mjs'))};
      process.stdout.write(JSON.stringify(await findTemporalServerApart().result));`;
    const env = { ...process.env, TEMPORAL_SERVER_PATH: server, TEMPORAL_SQL_TOOL_PATH: sqlTool };
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return JSON.parse(out);
  }

  it('resolves to what findTemporalServer returns there', () => {
    const server = join(root, 'package.json');
    const sqlTool = join(root, 'jest.config.js');
    expect(apart(server, sqlTool)).toEqual({ server, sqlTool });
  });

  it('resolves to null when it fails there (its output says why)', () => {
    expect(apart(join(root, 'no-such-temporal-server'), join(root, 'jest.config.js'))).toBeNull();
  });
});
