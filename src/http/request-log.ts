import type { Middleware } from 'koa';
import type { Orm } from '../db/orm';
import { runPrepared } from '../db/prepared';
import type { Logger } from '../logger';
import type { AppState } from './state';

export interface RequestLogRow {
  requestId: string;
  storeId: string;
  apiKeyId: string;
  method: string;
  endpoint: string | null;
  status: number;
  errorCode: string | null;
  ip: string | null;
  labelCount: number | null;
  byteSize: number | null;
  at: Date;
}

/** One statement for any batch: a column per array, so it is prepared once instead of built per batch. */
const INSERT_BATCH = `
  insert into request_log (request_id, store_id, api_key_id, method, endpoint, status, error_code, ip, label_count,
                           byte_size, created_at)
  select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::text[],
                       $8::text[], $9::integer[], $10::integer[], $11::timestamptz[])`;

/**
 * Writes the store's request log (spec "Authentication" 5) in batches: one multi-row insert every `flushMs` or every
 * `maxBatch` rows instead of a round trip per request, which the hot read path cannot afford
 * (docs/decisions/0009-read-path.md). Rows wait in memory at most `flushMs`; `close()` writes what is left, and a
 * failed write is retried with the next batch (up to `maxBuffered` rows, then the oldest are dropped and logged).
 * Once closed, a failed write is logged as lost rather than retried: no retry timer keeps a stopping process alive
 * while the database is down.
 */
export class RequestLogWriter {
  private buffer: RequestLogRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly orm: Orm,
    private readonly logger: Logger,
    private readonly options = { flushMs: 200, maxBatch: 500, maxBuffered: 50_000 },
  ) {}

  record(row: RequestLogRow): void {
    this.buffer.push(row);
    if (this.buffer.length >= this.options.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
  }

  /** Writes every buffered row; resolves once they are in the database (or the write failed and was logged). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const rows = this.buffer.splice(0);
    this.writing = this.writing.then(() => (rows.length > 0 ? this.write(rows) : undefined));
    return this.writing;
  }

  close(): Promise<void> {
    this.closed = true;
    return this.flush();
  }

  private async write(rows: RequestLogRow[]): Promise<void> {
    const column = <K extends keyof RequestLogRow>(name: K) => rows.map((r) => r[name]);
    try {
      await runPrepared(this.orm.em.fork(), INSERT_BATCH, [
        column('requestId'),
        column('storeId'),
        column('apiKeyId'),
        column('method'),
        column('endpoint'),
        column('status'),
        column('errorCode'),
        column('ip'),
        column('labelCount'),
        column('byteSize'),
        column('at'),
      ]);
    } catch (error) {
      if (this.closed) {
        this.logger.error({ err: error, rows: rows.length }, 'request log write failed at shutdown; rows lost');
        return;
      }
      this.logger.error({ err: error, rows: rows.length }, 'request log write failed; retrying with the next batch');
      this.buffer.unshift(...rows);
      const excess = this.buffer.length - this.options.maxBuffered;
      if (excess > 0) {
        this.buffer.splice(0, excess);
        this.logger.error({ dropped: excess }, 'request log buffer full; oldest rows dropped');
      }
      this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs * 5);
    }
  }
}

/**
 * Records the request once the response is decided: endpoint as the route template, status, error code, key, IP, and
 * for document downloads the label count and size. Requests that no key attributes to a store have no store log;
 * they appear in the process log only.
 */
export function requestLog(writer: RequestLogWriter): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const auth = ctx.state.auth;
      if (auth) {
        writer.record({
          requestId: ctx.state.requestId,
          storeId: auth.storeId,
          apiKeyId: auth.apiKeyId,
          method: ctx.method,
          endpoint: ctx.state.route ? `/v1${ctx.state.route.path}` : null,
          status: ctx.status,
          errorCode: ctx.state.errorCode ?? null,
          ip: ctx.ip || null,
          labelCount: ctx.state.logFields?.labelCount ?? null,
          byteSize: ctx.state.logFields?.byteSize ?? null,
          at: new Date(),
        });
      }
    }
  };
}
