import { Migration20261122000000Foundation } from './20261122000000-foundation';
import { Migration20261122000100Access } from './20261122000100-access';
import { Migration20261122000200Notifications } from './20261122000200-notifications';
import { Migration20261122000300Idempotency } from './20261122000300-idempotency';
import { Migration20261122000400RenderLeases } from './20261122000400-render-leases';
import { Migration20261122002000Labels } from './20261122002000-labels';
import { Migration20261122003000LabelShipmentId } from './20261122003000-label-shipment-id';
import { Migration20261123000100Ground } from './20261123000100-ground';
import { Migration20261123000200LiveCreation } from './20261123000200-live-creation';
import { Migration20261123010000AccountDefaultFulfillment } from './20261123010000-account-default-fulfillment';
import { Migration20261123020000PickupPointProviders } from './20261123020000-pickup-point-providers';
import { Migration20261123040000RateLimits } from './20261123040000-rate-limits';
import { Migration20261123050000UnresolvedCreations } from './20261123050000-unresolved-creations';
import { Migration20261123060000CarrierProtection } from './20261123060000-carrier-protection';
import { Migration20261123070000Webhooks } from './20261123070000-webhooks';
import { Migration20261124000000Admission } from './20261124000000-admission';
import { Migration20261125000000CreationLimitsInOneCall } from './20261125000000-creation-limits-in-one-call';
import { Migration20261125000100LockTakeInOneCall } from './20261125000100-lock-take-in-one-call';
import { Migration20261125000200WriteQueueInOneCall } from './20261125000200-write-queue-in-one-call';
import { Migration20261125000300LockRulesOnce } from './20261125000300-lock-rules-once';
import { Migration20261125100000LabelRowVersion } from './20261125100000-label-row-version';
import { Migration20261125200000WebhookEventRetention } from './20261125200000-webhook-event-retention';
import { Migration20261126000000InsertionOrder } from './20261126000000-insertion-order';
import { Migration20261127000000StorePlatformSessions } from './20261127000000-store-platform-sessions';
import { Migration20261127090000OperationalGauges } from './20261127090000-operational-gauges';
import { Migration20261128000000SendPlan } from './20261128000000-send-plan';
import { Migration20261129000000ReadWindows } from './20261129000000-read-windows';
import { Migration20261202000000ShopifyApp } from './20261202000000-shopify-app';
import { Migration20261201000000GrantedScopes } from './20261201000000-granted-scopes';
import { Migration20261130000000LabelsPrintForEarlierKeys } from './20261130000000-labels-print-for-earlier-keys';
import { Migration20261130000100PlatformCreationQueue } from './20261130000100-platform-creation-queue';
import { Migration20261204000000FlatUpdatedAfter } from './20261204000000-flat-updated-after';
import { Migration20261204000100RequestLogPartitions } from './20261204000100-request-log-partitions';
import { Migration20261205000000UpdatedAfterInOrder } from './20261205000000-updated-after-in-order';
import { Migration20261213000000CarrierAccountEndpoint } from './20261213000000-carrier-account-endpoint';
import { Migration20261214000000PacketaPickupPoints } from './20261214000000-packeta-pickup-points';
import { Migration20261210000000ExpiringShopifyTokens } from './20261210000000-expiring-shopify-tokens';
import { Migration20261210020000ShopifyWebhookEvents } from './20261210020000-shopify-webhook-events';

/** Explicit, ordered list: migrations run the same under tsx, jest and a bundle, with no file globbing. */
export const migrationsList = [
  { name: 'Migration20261122000000Foundation', class: Migration20261122000000Foundation },
  { name: 'Migration20261122000100Access', class: Migration20261122000100Access },
  { name: 'Migration20261122000200Notifications', class: Migration20261122000200Notifications },
  { name: 'Migration20261122000300Idempotency', class: Migration20261122000300Idempotency },
  { name: 'Migration20261122000400RenderLeases', class: Migration20261122000400RenderLeases },
  { name: 'Migration20261122002000Labels', class: Migration20261122002000Labels },
  { name: 'Migration20261122003000LabelShipmentId', class: Migration20261122003000LabelShipmentId },
  { name: 'Migration20261123000100Ground', class: Migration20261123000100Ground },
  { name: 'Migration20261123000200LiveCreation', class: Migration20261123000200LiveCreation },
  {
    name: 'Migration20261123010000AccountDefaultFulfillment',
    class: Migration20261123010000AccountDefaultFulfillment,
  },
  { name: 'Migration20261123020000PickupPointProviders', class: Migration20261123020000PickupPointProviders },
  { name: 'Migration20261123040000RateLimits', class: Migration20261123040000RateLimits },
  { name: 'Migration20261123050000UnresolvedCreations', class: Migration20261123050000UnresolvedCreations },
  { name: 'Migration20261123060000CarrierProtection', class: Migration20261123060000CarrierProtection },
  { name: 'Migration20261123070000Webhooks', class: Migration20261123070000Webhooks },
  { name: 'Migration20261124000000Admission', class: Migration20261124000000Admission },
  {
    name: 'Migration20261125000000CreationLimitsInOneCall',
    class: Migration20261125000000CreationLimitsInOneCall,
  },
  { name: 'Migration20261125000100LockTakeInOneCall', class: Migration20261125000100LockTakeInOneCall },
  { name: 'Migration20261125000200WriteQueueInOneCall', class: Migration20261125000200WriteQueueInOneCall },
  { name: 'Migration20261125000300LockRulesOnce', class: Migration20261125000300LockRulesOnce },
  { name: 'Migration20261125100000LabelRowVersion', class: Migration20261125100000LabelRowVersion },
  { name: 'Migration20261125200000WebhookEventRetention', class: Migration20261125200000WebhookEventRetention },
  { name: 'Migration20261126000000InsertionOrder', class: Migration20261126000000InsertionOrder },
  { name: 'Migration20261127000000StorePlatformSessions', class: Migration20261127000000StorePlatformSessions },
  { name: 'Migration20261127090000OperationalGauges', class: Migration20261127090000OperationalGauges },
  { name: 'Migration20261128000000SendPlan', class: Migration20261128000000SendPlan },
  { name: 'Migration20261129000000ReadWindows', class: Migration20261129000000ReadWindows },
  { name: 'Migration20261201000000GrantedScopes', class: Migration20261201000000GrantedScopes },
  {
    name: 'Migration20261130000000LabelsPrintForEarlierKeys',
    class: Migration20261130000000LabelsPrintForEarlierKeys,
  },
  { name: 'Migration20261130000100PlatformCreationQueue', class: Migration20261130000100PlatformCreationQueue },
  { name: 'Migration20261202000000ShopifyApp', class: Migration20261202000000ShopifyApp },
  { name: 'Migration20261204000000FlatUpdatedAfter', class: Migration20261204000000FlatUpdatedAfter },
  { name: 'Migration20261204000100RequestLogPartitions', class: Migration20261204000100RequestLogPartitions },
  { name: 'Migration20261205000000UpdatedAfterInOrder', class: Migration20261205000000UpdatedAfterInOrder },
  { name: 'Migration20261213000000CarrierAccountEndpoint', class: Migration20261213000000CarrierAccountEndpoint },
  { name: 'Migration20261214000000PacketaPickupPoints', class: Migration20261214000000PacketaPickupPoints },
  { name: 'Migration20261210000000ExpiringShopifyTokens', class: Migration20261210000000ExpiringShopifyTokens },
  { name: 'Migration20261210020000ShopifyWebhookEvents', class: Migration20261210020000ShopifyWebhookEvents },
];
