import type { FulfillmentOrderInput, OrderInput, PlatformFault } from './schemas';

/**
 * An export running (at most one; the control API starts and ends it), the merchant's own hold (`other`, as the
 * platform's admin places one; the control API too), or an app's hold under its handle.
 */
export type StoredHold =
  | { held_by: 'export'; reason: string | null }
  | { held_by: 'other'; reason: string | null }
  | { held_by: 'app'; reason: string; handle: string };

/** Statuses a hold moves to `on_hold` (the platform holds only what has not been fulfilled or cancelled). */
const HOLDABLE = new Set(['open', 'in_progress', 'scheduled']);

/** A fulfillment order's status as the platform shows it: `on_hold` while any hold is on one that could ship. */
export function shownStatus(fo: StoredFulfillmentOrder): FulfillmentOrderInput['status'] {
  return fo.holds.length > 0 && HOLDABLE.has(fo.status) ? 'on_hold' : fo.status;
}

export interface StoredFulfillmentOrder extends FulfillmentOrderInput {
  orderId: string;
  holds: StoredHold[];
  replaced_by: string[];
}

export interface StoredFulfillment {
  id: string;
  fulfillment_order_ids: string[];
  tracking_number: string | null;
  tracking_url: string | null;
  carrier_name: string | null;
  notify_customer: boolean;
  created_at: string;
}

export interface StoreState {
  orders: Map<string, Omit<OrderInput, 'fulfillment_orders'>>;
  fulfillmentOrders: Map<string, StoredFulfillmentOrder>;
  fulfillments: StoredFulfillment[];
  faults: PlatformFault[];
}

/** The numeric part of a numeric ID or a GID (`gid://shopify/Order/1001` -> `1001`). */
export function legacyIdOf(id: string): string {
  const match = /^(?:gid:\/\/shopify\/\w+\/)?(\d+)$/.exec(id.trim());
  return match ? match[1]! : id;
}

/** Order names compare without `#` and case (spec: `order_name` exact, `#` optional, case-insensitive). */
export function normalizeOrderName(name: string): string {
  return name.trim().replace(/^#/, '').toLowerCase();
}

/** In-memory platform state per store domain, so parallel tests with their own stores never collide. */
export class PlatformSandboxState {
  private readonly stores = new Map<string, StoreState>();
  private sequence = 0;

  store(domain: string): StoreState {
    let state = this.stores.get(domain);
    if (!state) {
      state = { orders: new Map(), fulfillmentOrders: new Map(), fulfillments: [], faults: [] };
      this.stores.set(domain, state);
    }
    return state;
  }

  /** The store's next scripted fault, used up by one call; null lets the call through. */
  takeFault(domain: string): PlatformFault | null {
    const store = this.store(domain);
    const next = store.faults[0];
    if (!next) return null;
    next.times -= 1;
    if (next.times <= 0) store.faults.shift();
    return next;
  }

  nextId(): string {
    this.sequence += 1;
    return String(9_000_000_000 + (Date.now() % 1_000_000) * 1000 + this.sequence);
  }

  reset(domain: string): void {
    this.stores.delete(domain);
  }
}
