import type { DestinationStream } from 'pino';

/** Which request lines the console shows: every one, those answered 4xx or 5xx, or none. */
export type RequestLines = 'all' | 'errors' | 'none';

type LogObject = Record<string, unknown> & { level?: number; msg?: unknown; name?: unknown };

/** The processes' names, shortened for a line a person reads. */
const SHORT_NAMES: Record<string, string> = {
  'shipping-label-api': 'api',
  'shipping-label-worker': 'worker',
  'shipping-label-sandbox': 'sandbox',
};

/** Fields every line has or a person does not need at a terminal. */
const IGNORED = 'pid,hostname,service';
/** pino's level numbers: info and below. */
const INFO = 30;

/**
 * What a log object becomes on the console, or null for a line not shown: a request's access line as one short line
 * (`POST /v1/labels 201 153 ms`, its error code when it has one), a message of several lines (the SDK's webpack
 * report) as its last line, the SDK's component and task queue only on warnings and errors. Everything else as logged.
 */
export function consoleObject(log: LogObject, requests: RequestLines): LogObject | null {
  const name = typeof log.name === 'string' ? (SHORT_NAMES[log.name] ?? log.name) : undefined;
  if (log.msg === 'request' && typeof log.status === 'number' && typeof log.method === 'string') {
    if (requests === 'none' || (requests === 'errors' && log.status < 400)) return null;
    const ms = typeof log.ms === 'number' ? ` ${log.ms < 10 ? log.ms.toFixed(1) : Math.round(log.ms)} ms` : '';
    const code = typeof log.error_code === 'string' ? ` ${log.error_code}` : '';
    return {
      level: log.level,
      time: log.time,
      name,
      msg: `${log.method} ${String(log.path)} ${log.status}${code}${ms}`,
      ...(log.status >= 500 ? { request_id: log.request_id } : {}),
    };
  }
  const shown: LogObject = { ...log, name };
  if (typeof log.msg === 'string' && log.msg.includes('\n')) {
    const lines = log.msg.split('\n').filter((line) => line.trim() !== '');
    shown.msg = `${lines.at(-1) ?? ''} (${lines.length - 1} more lines with LOG_FORMAT=json)`;
  }
  // The SDK's component and task queue are on every line it logs; what else it says (a worker's state) stays.
  if ((log.level ?? INFO) <= INFO && log.sdk && typeof log.sdk === 'object') {
    const { sdkComponent: _component, taskQueue: _queue, ...rest } = log.sdk as Record<string, unknown>;
    if (Object.keys(rest).length > 0) shown.sdk = rest;
    else delete shown.sdk;
  }
  return shown;
}

/**
 * The console of `LOG_FORMAT=pretty`: each JSON line pino writes, shaped by `consoleObject` and rendered by
 * pino-pretty (time, coloured level, process name, message, other fields below it), written to stdout. pino-pretty is a
 * development dependency, loaded only here; production refuses `LOG_FORMAT=pretty` (src/config/core.ts).
 */
export function prettyConsole(options: {
  requests: RequestLines;
  colorize: boolean;
  write?: (text: string) => void;
}): DestinationStream {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a development dependency, loaded when asked for
  const { prettyFactory } = require('pino-pretty') as typeof import('pino-pretty');
  const render = prettyFactory({
    colorize: options.colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: IGNORED,
    singleLine: false,
  });
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  return {
    write(line: string) {
      let log: LogObject;
      try {
        log = JSON.parse(line) as LogObject;
      } catch {
        write(line);
        return;
      }
      const shown = consoleObject(log, options.requests);
      if (shown) write(render(shown));
    },
  };
}
