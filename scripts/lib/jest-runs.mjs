// `npm test`'s jest runs. The unit project runs first, on its own: it needs no database, so its files side by side
// follow the cores alone (scripts/lib/jest-workers.mjs); its environment moves Date a year ahead (decision 1151). The
// other projects talk to PostgreSQL and the Temporal server; the cluster project last, alone (ALONE_PROJECTS).
// `--selectProjects` and `--ignoreProjects` given to `npm test -- ...` choose the runs; every other argument goes to
// each run.

const SELECT = ['--selectProjects', '--select-projects'];
const IGNORE = ['--ignoreProjects', '--ignore-projects'];
export const UNIT_PROJECT = 'unit';
/**
 * Projects that run after the others, alone: the cluster test's production shape (a Temporal server on PostgreSQL,
 * two workers, two API processes) holds up to about 75 of PostgreSQL's 100 connections, which beside the integration
 * files running side by side (decision 1150) left none for some of them; the docs test runs `npm run dev`'s whole
 * stack of its own (decision 0040).
 */
export const ALONE_PROJECTS = ['docs', 'cluster'];

/** The names after a project option, as jest reads them: `--selectProjects a b` or `--selectProjects=a`. */
function splitProjectOptions(args) {
  const select = [];
  const ignore = [];
  const rest = [];
  let selected = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const [option, inline] = arg.split(/=(.*)/s);
    const into = SELECT.includes(option) ? select : IGNORE.includes(option) ? ignore : null;
    if (!into) {
      rest.push(arg);
      continue;
    }
    if (into === select) selected = true;
    if (inline !== undefined) {
      into.push(inline);
      continue;
    }
    while (i + 1 < args.length && !args[i + 1].startsWith('-')) into.push(args[(i += 1)]);
  }
  return { select, selected, ignore, rest };
}

/**
 * The runs for `args` over the projects of jest.config.js (`projectNames`, in its order): the unit project's, then one of every other selected project but those of ALONE_PROJECTS, then one of each of those; `{ error }`
 * for a project jest.config.js does not name. With several runs, a path pattern may match tests of only some of them:
 * each passes with no tests (`--passWithNoTests`) and `requireTests` asks the caller to fail when they found none
 * together, as one jest run would.
 */
export function planJestRuns(args, projectNames) {
  const { select, selected, ignore, rest } = splitProjectOptions(args);
  const unknown = [...select, ...ignore].filter((name) => !projectNames.includes(name));
  if (unknown.length > 0) {
    return {
      error: `no jest project ${unknown.map((n) => `"${n}"`).join(', ')} (jest.config.js has ${projectNames.join(', ')}); path patterns go before --selectProjects`,
    };
  }
  const chosen = projectNames.filter((name) => (!selected || select.includes(name)) && !ignore.includes(name));
  if (chosen.length === 0) return { error: 'no jest project left to run (--selectProjects / --ignoreProjects)' };
  const others = chosen.filter((name) => name !== UNIT_PROJECT && !ALONE_PROJECTS.includes(name));
  const groups = [
    ...(chosen.includes(UNIT_PROJECT) ? [{ name: UNIT_PROJECT, projects: [UNIT_PROJECT] }] : []),
    ...(others.length > 0 ? [{ name: 'servers', projects: others }] : []),
    ...chosen.filter((name) => ALONE_PROJECTS.includes(name)).map((name) => ({ name, projects: [name] })),
  ];
  const split = groups.length > 1 && !rest.includes('--passWithNoTests');
  return {
    requireTests: split,
    runs: groups.map((group) => ({
      ...group,
      args: ['--selectProjects', ...group.projects, ...(split ? ['--passWithNoTests'] : []), ...rest],
    })),
  };
}

/** One jest `--json` result of several runs: counts added, lists joined, `success` only if every run succeeded. */
export function mergeJestResults(results) {
  const merge = (a, b, key) => {
    if (key === 'startTime') return Math.min(a, b);
    if (typeof a === 'number' && typeof b === 'number') return a + b;
    if (typeof a === 'boolean' && typeof b === 'boolean') return key === 'success' ? a && b : a || b;
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    if (a && b && typeof a === 'object' && typeof b === 'object') {
      const out = { ...a };
      for (const [k, v] of Object.entries(b)) out[k] = k in a ? merge(a[k], v, k) : v;
      return out;
    }
    return a ?? b;
  };
  return results.reduce((merged, result) => merge(merged, result, ''));
}

/**
 * The `count` slowest test files of a jest `--json` result (merged or not), slowest first: each file's path relative
 * to `root`, its seconds and its number of tests. A file that two projects run (integration, integration-shopify)
 * appears once per run.
 */
export function slowestSuites(result, root, count = 10) {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return (result.testResults ?? [])
    .filter((suite) => Number.isFinite(suite.startTime) && Number.isFinite(suite.endTime))
    .map((suite) => ({
      file: suite.name.startsWith(prefix) ? suite.name.slice(prefix.length) : suite.name,
      seconds: (suite.endTime - suite.startTime) / 1000,
      tests: suite.assertionResults?.length ?? 0,
    }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
}

/** `slowestSuites` as the lines `npm test` prints: seconds, the file's share of all files' time, tests, path. */
export function formatSlowestSuites(result, root, count = 10) {
  const all = (result.testResults ?? []).reduce(
    (sum, suite) => sum + (Number.isFinite(suite.endTime - suite.startTime) ? suite.endTime - suite.startTime : 0),
    0,
  );
  const slowest = slowestSuites(result, root, count);
  if (slowest.length === 0) return [];
  const share = (seconds) => (all > 0 ? `${Math.round((seconds * 100_000) / all)}%` : '-');
  return [
    `The ${slowest.length} slowest test files (of ${Math.round(all / 1000)} s in all files):`,
    ...slowest.map(
      (s) =>
        `${s.seconds.toFixed(1).padStart(7)} s ${share(s.seconds).padStart(4)} ${String(s.tests).padStart(4)} tests  ${s.file}`,
    ),
  ];
}
