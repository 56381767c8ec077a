/**
 * Error codes that mean PostgreSQL could not be reached or dropped the connection: the socket's (refused, reset, timed
 * out, unreachable) and PostgreSQL's own class 08 (connection exception) and 57P0x (the server shutting down or not
 * accepting connections yet). A statement's own failure (a constraint, a lock timeout) is not one of them.
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
]);
/** What node-postgres and knex say, without a code, when a connection ends or none can be had in time. */
const UNREACHABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Timeout acquiring a connection/i,
  /Client has encountered a connection error/i,
];

/**
 * True when `error` (or an error it wraps, as MikroORM's exceptions do) says the database is unreachable: the request
 * may succeed when sent again, so the HTTP edge answers 503 `temporarily_unavailable` instead of 500.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  return inCauses(error, (code, message) => {
    if (code !== undefined && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) return true;
    return UNREACHABLE_MESSAGES.some((pattern) => pattern.test(message));
  });
}

/** Whether `error` or an error it wraps (up to five deep, as MikroORM's exceptions do) satisfies `test`. */
function inCauses(error: unknown, test: (code: string | undefined, message: string) => boolean): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const { code } = current as { code?: unknown };
    if (test(typeof code === 'string' ? code : undefined, current.message)) return true;
    current = current.cause;
  }
  return false;
}

/**
 * PostgreSQL's codes for a statement that failed for the moment, not for what it is: a lock not had in time (55P03,
 * `lock_timeout`), a statement cancelled (57014, `statement_timeout`), a transaction rolled back (class 40: a
 * serialization failure, a deadlock) and insufficient resources (class 53: too many connections, out of memory).
 */
const TRANSIENT_CODES = new Set(['55P03', '57014']);
const TRANSIENT_CLASSES = ['40', '53'];

/**
 * True when a statement may succeed when sent again: the database unreachable, or one of the transient failures
 * above. A statement that fails for what it is (a syntax error, a missing relation, a data exception) is a bug, which
 * the HTTP edge answers as 500 `internal_error` and logs with its stack, not as an outage to retry.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (isDatabaseUnreachable(error)) return true;
  return inCauses(
    error,
    (code) => code !== undefined && (TRANSIENT_CODES.has(code) || TRANSIENT_CLASSES.includes(code.slice(0, 2))),
  );
}
