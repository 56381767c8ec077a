import type { Orm } from '../../src/db/orm';
import { RequestLogWriter, type RequestLogRow } from '../../src/http/request-log';
import type { Logger } from '../../src/logger';

// The request log is written in batches; a database that does not answer must neither lose rows while the API runs
// (they wait for the next batch) nor keep a stopping process alive with a retry timer.
const downOrm = {
  em: {
    fork: () => ({
      isInTransaction: () => false,
      getKnex: () => ({
        client: {
          acquireConnection: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')),
          releaseConnection: () => Promise.resolve(),
        },
      }),
    }),
  },
} as unknown as Orm;

const row = (n: number): RequestLogRow => ({
  requestId: `req_${n}`,
  storeId: 'st_1',
  apiKeyId: 'key_1',
  method: 'GET',
  endpoint: '/labels',
  status: 200,
  errorCode: null,
  ip: null,
  labelCount: null,
  byteSize: null,
  at: new Date(),
});

function recordingLogger() {
  const errors: Array<{ message: string; rows: unknown }> = [];
  const logger = {
    error: (fields: { rows?: unknown }, message: string) => errors.push({ message, rows: fields.rows }),
  } as unknown as Logger;
  return { logger, errors };
}

describe('RequestLogWriter with the database down', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('keeps the rows of a failed write for a retry while running', async () => {
    const { logger, errors } = recordingLogger();
    const writer = new RequestLogWriter(downOrm, logger, { flushMs: 200, maxBatch: 500, maxBuffered: 50_000 });
    writer.record(row(1));
    writer.record(row(2));
    await writer.flush();
    expect(errors).toEqual([{ message: 'request log write failed; retrying with the next batch', rows: 2 }]);
    expect(jest.getTimerCount()).toBe(1);
  });

  it('logs the rows as lost at close and leaves no timer behind', async () => {
    const { logger, errors } = recordingLogger();
    const writer = new RequestLogWriter(downOrm, logger, { flushMs: 200, maxBatch: 500, maxBuffered: 50_000 });
    writer.record(row(1));
    await writer.close();
    expect(errors).toEqual([{ message: 'request log write failed at shutdown; rows lost', rows: 1 }]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('a write that fails after close began (rows buffered before) is not retried either', async () => {
    const { logger, errors } = recordingLogger();
    const writer = new RequestLogWriter(downOrm, logger, { flushMs: 200, maxBatch: 500, maxBuffered: 50_000 });
    writer.record(row(1));
    const running = writer.flush();
    const closing = writer.close();
    await Promise.all([running, closing]);
    expect(errors.map((e) => e.message)).toEqual(['request log write failed at shutdown; rows lost']);
    expect(jest.getTimerCount()).toBe(0);
  });
});
