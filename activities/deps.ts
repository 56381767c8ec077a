import type { Orm } from '../src/db/orm';
import type { Logger } from '../src/logger';

export interface ActivityDeps {
  orm: Orm;
  logger: Logger;
  now: () => Date;
  /** SMTP transport URL (smtp://user:pass@host:port); unset keeps e-mails in the outbox. */
  smtpUrl: string | undefined;
  mailFrom: string;
}
