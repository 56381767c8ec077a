import type { AppGrants } from './access';

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
  /** The client ID of the public app installed on the shop (the fake's OAuth), if one is. */
  installedApp: string | null;
  /** The app uninstalled last: Shopify still sends it `shop/redact` 48 hours later. */
  formerApp: string | null;
  grants: AppGrants;
  bucket: Bucket;
  faults: ShopifyFault[];
  requests: number;
}
