// How many test files jest runs side by side (decision 1152): pure arithmetic over the machine's cores and PostgreSQL's
// connection budget. `npm test` reads the budget from the server (scripts/lib/postgres.mjs, connectionBudget) and
// passes the result as `--maxWorkers`; jest.config.js assumes PostgreSQL's defaults for a jest started by hand.

/**
 * What one integration file holds at most: its app's pools (the ORM's `max: 10`, src/db/orm.ts, and the hot path's 2,
 * HOT_POOL_SIZE) for the file's app and a second app or a database of its own alive beside it (test/helpers/test-app.ts,
 * own-database.ts), and a plain client or a `labelctl` process.
 */
export const CONNECTIONS_PER_FILE = 25;
/** What the run holds beside the files: the global setup's worker (its ORM's pool of 10). */
export const SHARED_CONNECTIONS = 10;
/** PostgreSQL's defaults: `max_connections` 100, of which `superuser_reserved_connections` 3. */
export const POSTGRES_DEFAULTS = { maxConnections: 100, reserved: 3, inUse: 0 };

/**
 * The integration files side by side: one more than the cores (a file mostly waits on the servers, timers and
 * processes it drives, decision 1150, but every file's app, the Temporal server, the worker and PostgreSQL share those
 * cores), and no more than the connections left (`maxConnections` less the `reserved` and those `inUse` by others,
 * less the run's shared ones) hold files of CONNECTIONS_PER_FILE; at least one. `why` says which bound it was.
 */
export function integrationFiles({ cores, maxConnections, reserved, inUse }) {
  const byCores = Math.max(1, cores + 1);
  const free = maxConnections - reserved - inUse - SHARED_CONNECTIONS;
  const byConnections = Math.max(1, Math.floor(free / CONNECTIONS_PER_FILE));
  const count = Math.min(byCores, byConnections);
  const bound = byConnections < byCores ? 'connections' : 'cores';
  const why =
    `${cores} cores, ${maxConnections} PostgreSQL connections with ${reserved} reserved and ${inUse} in use, ` +
    `~${CONNECTIONS_PER_FILE} each and ${SHARED_CONNECTIONS} for the run's worker: ${byCores} by the cores, ` +
    `${byConnections} by the connections`;
  return { count, byCores, byConnections, bound, why };
}

/**
 * The unit files side by side: four, or one fewer than the cores where there are more (decision 1150: on 2 cores the
 * unit run took 57 s with four workers against 92 s with one; its tests wait on the processes they start).
 */
export function unitFiles({ cores }) {
  return Math.max(4, cores - 1);
}

/** Whether jest's arguments already say how many workers (`--maxWorkers N`, `--maxWorkers=N`, `-w N`, `--runInBand`). */
export function choosesWorkers(args) {
  return args.some((arg) => /^(--maxWorkers|--max-workers|-w|--runInBand|-i)(=|$)/.test(arg) || /^-w\d/.test(arg));
}
