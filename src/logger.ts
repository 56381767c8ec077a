import pino, { type Logger } from 'pino';
import { prettyConsole, type RequestLines } from './pretty-console';

export type { Logger };

/** How a process writes its log: JSON lines (every environment's default), or the pretty console of development. */
export interface LogOutput {
  format: 'json' | 'pretty';
  requests: RequestLines;
}

/**
 * JSON logs to stdout; request bodies, keys and query strings are never passed to the logger. Writes are
 * asynchronous (a synchronous write per request line cost the read path about a sixth of its CPU) and gathered (up
 * to 4 KiB, at most 200 ms); what is buffered is written out when the process exits.
 */
export function createLogger(
  level: string,
  name = 'shipping-label-api',
  output: LogOutput = { format: 'json', requests: 'all' },
): Logger {
  if (output.format === 'pretty' && level !== 'silent') {
    // For a person at a terminal (`npm run dev`): colours unless NO_COLOR is set or stdout is not a terminal.
    const colorize = !process.env.NO_COLOR && process.stdout.isTTY === true;
    return pino(loggerOptions(level, name), prettyConsole({ requests: output.requests, colorize }));
  }
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
  return pino(loggerOptions(level, name), destination ?? pino.destination({ dest: 1, sync: true }));
}

function loggerOptions(level: string, name: string): pino.LoggerOptions {
  return {
    name,
    level,
    base: { service: name },
    redact: {
      paths: ['authorization', '*.authorization', 'headers.authorization', 'secret', '*.secret'],
      remove: true,
    },
  };
}
