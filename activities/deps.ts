import type { CarrierPort } from '../src/carriers/port';
import type { CarrierProtectionSettings } from '../src/domain/carrier-protection';
import type { Orm } from '../src/db/orm';
import type { StorePlatformPort } from '../src/platform/port';
import type { Logger } from '../src/logger';

export interface ActivityDeps {
  orm: Orm;
  logger: Logger;
  now: () => Date;
  /** SMTP transport URL (smtp://user:pass@host:port); unset keeps e-mails in the outbox. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Store-platform port (label creation reads orders and fulfils them). */
  platform: StorePlatformPort;
  /** The carrier port's adapter for a catalogue carrier code. */
  carrierFor: (carrierCode: string) => CarrierPort;
  /** Circuit and refusal limits of carrier protection (docs/decisions/0500-carrier-protection.md). */
  carrierProtection: CarrierProtectionSettings;
}
