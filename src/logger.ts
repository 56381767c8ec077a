import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON logs; request bodies, keys and query strings are never passed to the logger. */
export function createLogger(level: string, name = 'shipping-label-api'): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    redact: {
      paths: ['authorization', '*.authorization', 'headers.authorization', 'secret', '*.secret'],
      remove: true,
    },
  });
}
