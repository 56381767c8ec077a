import type { Client } from '@temporalio/client';
import type { CarrierPort } from '../src/carriers/port';
import type { CarrierProtectionSettings } from '../src/domain/carrier-protection';
import type { Orm } from '../src/db/orm';
import type { StorePlatformPort } from '../src/platform/port';
import type { Logger } from '../src/logger';
import type { WebhookRetrySchedule } from '../src/domain/webhooks';
import type { CreationRenderer } from '../src/webhooks/publish';
import type { Resolver, TargetPolicy } from '../src/net/target-guard';
import type { PacketaFeedConfig } from '../src/config/packeta-feed';
import type { ShopifyApp } from '../src/platform/shopify/app';

export interface ActivityDeps {
  orm: Orm;
  logger: Logger;
  now: () => Date;
  /** SMTP transport URL (smtp://user:pass@host:port); unset keeps e-mails in the outbox. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Store-platform port (label creation reads orders and fulfils them). */
  platform: StorePlatformPort;
  /** The public Shopify app's token endpoint (token migration, decision 0711); null or absent without its credentials. */
  shopifyApp?: ShopifyApp | null;
  /** The carrier port's adapter for a catalogue carrier code. */
  carrierFor: (carrierCode: string) => CarrierPort;
  /** Circuit and refusal limits of carrier protection (docs/decisions/0500-carrier-protection.md). */
  carrierProtection: CarrierProtectionSettings;
  /** Shopify's privacy webhooks (docs/decisions/0708): where a customer data export is sent through the outbox. */
  privacy: { exportEmail: string };
  /** Packeta's pickup-point feed (PACKETA_FEED_*); null without an API key. */
  packetaFeed: PacketaFeedConfig['packetaFeed'];
  /** Starts webhook delivery workflows (an emission from inside a creation activity). */
  temporal: Client;
  webhooks: {
    /** The worker's task queue, where delivery workflows run. */
    taskQueue: string;
    /** The creation object of `label_creation.updated` payloads, as the API serializes it. */
    renderCreation: CreationRenderer;
    retry: WebhookRetrySchedule;
    /** Time box of one delivery request. */
    timeoutMs: number;
    /** Opens the endpoints' sealed signing secrets (`SETTINGS_ENCRYPTION_KEY`). */
    settingsKey: Buffer;
    resolve: Resolver;
    policy: TargetPolicy;
  };
}
