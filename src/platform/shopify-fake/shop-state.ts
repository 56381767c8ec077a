import type { AppGrants } from './access';
import type { Definitions } from './metafields';

/** What the fake Shopify keeps of one shop: its install, grants, throttle bucket and the faults a test queued. */
export interface Bucket {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
  at: number;
}

/**
 * A fault of one mutation (by its root field), `after` more of them let through: `unavailable` answers 503 and changes
 * nothing; `late_answer` runs it (Shopify committed it) and holds the answer `delay_ms`, past the caller's time box.
 */
export interface MutationFault {
  type: 'mutation';
  mutation: string;
  after: number;
  outcome: 'unavailable' | 'late_answer';
  delay_ms: number;
}

export type ShopifyFault =
  | { type: 'user_error'; message: string; code: string | null }
  | { type: 'http_429'; retry_after_seconds: number }
  | MutationFault;

export interface ShopState {
  /** Shopify's numeric ID of the shop. */
  id: number;
  name: string;
  email: string;
  accessToken: string | null;
  /** The app `accessToken` is of: the public app's client ID after OAuth, a custom app's ID after `PUT .../session`. */
  tokenApp: string;
  /** The client ID of the public app installed on the shop (the fake's OAuth), if one is. */
  installedApp: string | null;
  /** The app uninstalled last: Shopify still sends it `shop/redact` 48 hours later. */
  formerApp: string | null;
  grants: AppGrants;
  /** Other apps installed on the shop (a pickup-point app, a checkout extension's app), by their access token. */
  otherApps: Map<string, { appId: string; grants: AppGrants }>;
  /** Metafield definitions on the shop's orders (metafields.ts). */
  definitions: Definitions;
  bucket: Bucket;
  faults: ShopifyFault[];
  requests: number;
}
