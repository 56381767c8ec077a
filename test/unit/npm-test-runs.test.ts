import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// `npm test`'s jest runs (scripts/lib/jest-runs.mjs) and its libfaketime (scripts/lib/faketime.mjs): plain ESM of the
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
  (plan(args).runs as Array<{ name: string; fakeClock: boolean; args: string[] }>).map((r) => [
    r.name,
    r.fakeClock,
    r.args,
  ]);

describe('npm test: the jest runs', () => {
  it('runs the unit project with the fake clock, then the others, then the cluster alone; each passes with no tests, all together may not', () => {
    expect(plan(['-t', 'rotation'])).toEqual({
      requireTests: true,
      runs: [
        {
          name: 'unit',
          projects: ['unit'],
          fakeClock: true,
          args: ['--selectProjects', 'unit', '--passWithNoTests', '-t', 'rotation'],
        },
        {
          name: 'servers',
          projects: ['integration', 'integration-shopify'],
          fakeClock: false,
          args: ['--selectProjects', 'integration', 'integration-shopify', '--passWithNoTests', '-t', 'rotation'],
        },
        {
          name: 'cluster',
          projects: ['cluster'],
          fakeClock: false,
          args: ['--selectProjects', 'cluster', '--passWithNoTests', '-t', 'rotation'],
        },
      ],
    });
  });

  it.each([
    [['--selectProjects', 'integration'], [['servers', false, ['--selectProjects', 'integration']]]],
    [['--selectProjects=unit', 'test/unit/ids'], [['unit', true, ['--selectProjects', 'unit', 'test/unit/ids']]]],
    [
      ['test/integration/access', '--select-projects', 'cluster', 'unit'],
      [
        ['unit', true, ['--selectProjects', 'unit', '--passWithNoTests', 'test/integration/access']],
        ['cluster', false, ['--selectProjects', 'cluster', '--passWithNoTests', 'test/integration/access']],
      ],
    ],
    [
      ['--ignoreProjects', 'cluster', 'integration-shopify', '--runInBand'],
      [
        ['unit', true, ['--selectProjects', 'unit', '--passWithNoTests', '--runInBand']],
        ['servers', false, ['--selectProjects', 'integration', '--passWithNoTests', '--runInBand']],
      ],
    ],
    [
      ['--ignoreProjects=unit'],
      [
        ['servers', false, ['--selectProjects', 'integration', 'integration-shopify', '--passWithNoTests']],
        ['cluster', false, ['--selectProjects', 'cluster', '--passWithNoTests']],
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

describe('npm test: libfaketime for the unit run', () => {
  /** ensureLibfaketime over a machine described by `machine`; what it returned or threw, and the commands it ran. */
  const ensure = (machine: { found: boolean; apt?: boolean; root?: boolean; installs?: boolean[] }) =>
    call(
      'faketime.mjs',
      `(() => {
        const machine = ${JSON.stringify({ apt: true, root: true, installs: [], ...machine })};
        const ran = [];
        let found = machine.found;
        const deps = {
          findLibrary: () => (found ? '/usr/lib/x/faketime/libfaketime.so.1' : null),
          hasAptGet: () => machine.apt,
          isRoot: () => machine.root,
          run: (command, args) => {
            ran.push([command, ...args].join(' '));
            if (args[0] !== 'install') return true;
            const ok = machine.installs.shift() ?? false;
            found = found || ok;
            return ok;
          },
          log: () => undefined,
        };
        try {
          return { path: m.ensureLibfaketime(deps), ran };
        } catch (e) {
          return { error: e.message, ran };
        }
      })()`,
    );
  const install = 'apt-get install -y --no-install-recommends faketime';

  it('uses the library it finds and installs nothing', () => {
    expect(ensure({ found: true })).toEqual({ path: '/usr/lib/x/faketime/libfaketime.so.1', ran: [] });
  });

  it('installs the package with apt-get as root; after a failed install, updates the lists and tries once more', () => {
    expect(ensure({ found: false, installs: [true] }).ran).toEqual([install]);
    expect(ensure({ found: false, installs: [false, true] })).toEqual({
      path: '/usr/lib/x/faketime/libfaketime.so.1',
      ran: [install, 'apt-get update', install],
    });
  });

  it.each([
    ['no apt-get', { found: false, apt: false }, []],
    ['not root', { found: false, root: false }, []],
    ['apt-get failing twice', { found: false, installs: [false, false] }, [install, 'apt-get update', install]],
  ])('fails with what to do when it cannot install: %s', (_name, machine, ran) => {
    const outcome = ensure(machine);
    expect(outcome.ran).toEqual(ran);
    expect(outcome.error).toMatch(/clock a year ahead under libfaketime, which is missing/);
    expect(outcome.error).toMatch(/apt-get install faketime/);
  });

  it('preloads the library into the processes it starts, beside any library already preloaded', () => {
    expect(call('faketime.mjs', `m.fakeClockEnv('/l/libfaketime.so.1', '+365d', { LD_PRELOAD: '/other.so' })`)).toEqual(
      {
        LD_PRELOAD: '/l/libfaketime.so.1:/other.so',
        FAKETIME: '+365d',
      },
    );
    expect(call('faketime.mjs', `m.fakeClockEnv('/l/libfaketime.so.1', '+365d', {})`).LD_PRELOAD).toBe(
      '/l/libfaketime.so.1',
    );
  });
});
