import { context, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { Client, Pool } from 'pg';
import { activeTracer } from './spans';

type QueryMethod = (this: Client, ...args: unknown[]) => unknown;
type Callback = (this: unknown, error: unknown, result: unknown) => unknown;
type ConnectMethod = (this: Pool, ...args: unknown[]) => unknown;
type ConnectCallback = (this: unknown, ...results: unknown[]) => unknown;

/** Long statements (batched inserts) are cut: a span records what ran, not a copy of the data. */
const MAX_STATEMENT = 2_000;

/**
 * A client span for every PostgreSQL statement made inside a traced operation (a request, an activity): MikroORM's
 * (through knex) and the hot paths' own pool both go through `pg`'s `Client#query`, which this wraps while tracing is
 * on. Statements with no span around them (pollers, housekeeping) are not traced: they would each start a trace of
 * their own. Values are never recorded: parameters are not, and literals that MikroORM inlines into a statement are
 * replaced by `?`. Returns the unwrapping.
 */
export function tracePostgres(): () => void {
  const prototype = Client.prototype as unknown as { query: QueryMethod };
  const original = prototype.query;
  prototype.query = function tracedQuery(this: Client, ...args: unknown[]) {
    const tracer = activeTracer();
    // Only below a span that records: an unsampled request's statements cost nothing more.
    const text = tracer && recording() ? statementText(args[0]) : undefined;
    if (!tracer || text === undefined) return original.apply(this, args);
    const { operation, redacted } = described(text);
    const span = tracer.startSpan(statementName(text, this.database), {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system': 'postgresql',
        'db.namespace': this.database ?? '',
        'db.operation.name': operation,
        'db.query.text': redacted,
        'server.address': this.host,
        'server.port': this.port,
      },
    });
    return callWithSpan(original, this, args, span);
  };
  const unbindPool = bindPoolCallbacks();
  return () => {
    prototype.query = original;
    unbindPool();
  };
}

/**
 * A pool hands a queued caller its connection from whatever released one: another request's statement callback. So
 * `pool.query()` (which waits through a callback) would run its statement in that request's context, its span in the
 * wrong trace, or in none. Each waiting callback is bound to its caller's context instead. Returns the unbinding.
 */
function bindPoolCallbacks(): () => void {
  let owner = Pool.prototype as object;
  while (!Object.prototype.hasOwnProperty.call(owner, 'connect')) owner = Object.getPrototypeOf(owner) as object;
  const holder = owner as { connect: ConnectMethod };
  const original = holder.connect;
  holder.connect = function boundConnect(this: Pool, ...args: unknown[]) {
    // Unsampled callers too: handed over inside a recording request, their statements would be recorded in its trace.
    if (typeof args[0] === 'function') args[0] = inCallersContext(args[0] as ConnectCallback);
    return original.apply(this, args);
  };
  return () => {
    holder.connect = original;
  };
}

/**
 * The callback run in its caller's context. Not `context.bind`: this runs for every statement of every request, and
 * most need no switch: a callback handed its connection at once is already in its caller's context, and one handed it
 * from another unsampled request's context records nothing there, as in its own (most reads are not kept, decision
 * 0951). A switch is only needed when either context records.
 */
function inCallersContext(callback: ConnectCallback): ConnectCallback {
  const caller = context.active();
  const callerRecords = recordingIn(caller);
  // Every argument passes on: `connect`'s callback takes a third, the release.
  return function (this: unknown, ...results: unknown[]) {
    const current = context.active();
    if (current === caller || (!callerRecords && !recordingIn(current))) return callback.apply(this, results);
    return context.with(caller, callback, this, ...results);
  };
}

function recording(): boolean {
  return recordingIn(context.active());
}

function recordingIn(active: Context): boolean {
  return trace.getSpan(active)?.isRecording() === true;
}

/** Calls `query` with the span ended by its outcome, however the caller takes it: a callback or a promise. */
function callWithSpan(query: QueryMethod, client: Client, args: unknown[], span: Span): unknown {
  const end = (error: unknown) => {
    if (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : 'query failed' });
    }
    span.end();
  };
  const callbackAt = args.length > 1 && typeof args[args.length - 1] === 'function' ? args.length - 1 : -1;
  if (callbackAt >= 0) {
    const callback = args[callbackAt] as Callback;
    args[callbackAt] = function ended(this: unknown, error: unknown, result: unknown) {
      end(error);
      return callback.call(this, error, result);
    };
    return query.apply(client, args);
  }
  const config = args[0] as { callback?: Callback };
  if (typeof config === 'object' && typeof config.callback === 'function') {
    const callback = config.callback;
    args[0] = { ...config, callback: (error: unknown, result: unknown) => (end(error), callback(error, result)) };
    return query.apply(client, args);
  }
  try {
    const result = query.apply(client, args);
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => (end(undefined), value),
        (error: unknown) => {
          end(error);
          throw error;
        },
      );
    }
    end(undefined);
    return result;
  } catch (error) {
    end(error);
    throw error;
  }
}

interface Described {
  operation: string;
  table: string | undefined;
  redacted: string;
}

/** Prepared statements repeat their text on every request: each is worked out once (bounded, for inlined values). */
const describedTexts = new Map<string, Described>();
const DESCRIBED_TEXTS = 500;

function described(text: string): Described {
  let description = describedTexts.get(text);
  if (!description) {
    description = { operation: operationOf(text), table: tableOf(text), redacted: redactedStatement(text) };
    if (describedTexts.size >= DESCRIBED_TEXTS) describedTexts.clear();
    describedTexts.set(text, description);
  }
  return description;
}

/** The statement of a `query(text)` or `query({ text })` call; undefined for a submittable (a cursor, a stream). */
export function statementText(config: unknown): string | undefined {
  if (typeof config === 'string') return config;
  if (typeof config !== 'object' || config === null) return undefined;
  const { text, submit } = config as { text?: unknown; submit?: unknown };
  return typeof submit !== 'function' && typeof text === 'string' ? text : undefined;
}

/**
 * The statement without its literals (strings and numbers become `?`), its indentation folded into single spaces, cut
 * to a readable length: every span carries it, so every byte is exported again with each statement.
 */
export function redactedStatement(text: string): string {
  const redacted = text
    .replace(/'(?:[^']|'')*'/g, "'?'")
    .replace(/(?<![\w$".])\d+(?:\.\d+)?(?![\w"])/g, '?')
    .replace(/\s+/g, ' ')
    .trim();
  return redacted.length > MAX_STATEMENT ? `${redacted.slice(0, MAX_STATEMENT)}…` : redacted;
}

/** The statement's first keyword (`SELECT`, `INSERT`, `WITH`, `BEGIN`...). */
export function operationOf(text: string): string {
  return /^\s*([a-z]+)/i.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
}

/** `{operation} {table}` as OpenTelemetry names database spans; the database when no table shows. */
export function statementName(text: string, database: string | undefined): string {
  const { operation, table } = described(text);
  return [operation, table ?? database].filter(Boolean).join(' ');
}

/** The first table the statement names after FROM, INTO, UPDATE or JOIN. */
function tableOf(text: string): string | undefined {
  return /\b(?:from|into|update|join)\s+"?([a-z_][a-z0-9_]*)"?/i.exec(text)?.[1];
}
