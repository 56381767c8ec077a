/**
 * A per-store view of Shopify's leaky bucket of query cost (`extensions.cost.throttleStatus`), so concurrent calls for
 * one store in this process wait for points instead of spending a request on `THROTTLED` (decision 0703). Shopify's
 * own count wins whenever an answer reports it; between answers the view refills at the restore rate and deducts
 * what this process has sent.
 */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

interface StoreBucket extends ThrottleStatus {
  at: number;
}

export type Admission = { wait: number } | { refuse: true; retryAfterSeconds: number };

export class CostBuckets {
  private readonly buckets = new Map<string, StoreBucket>();

  constructor(
    private readonly now: () => number = Date.now,
    /** Longest wait for points before a call counts as throttled instead. */
    private readonly maxWaitMs = 2_000,
  ) {}

  private current(store: string): StoreBucket | null {
    const b = this.buckets.get(store);
    if (!b) return null;
    const t = this.now();
    const refilled = Math.min(b.maximumAvailable, b.currentlyAvailable + ((t - b.at) / 1000) * b.restoreRate);
    return { ...b, currentlyAvailable: refilled, at: t };
  }

  /** Seconds until `cost` points are there again at the restore rate (at least 1). */
  retryAfterSeconds(store: string, cost: number): number {
    const b = this.current(store);
    if (!b || b.restoreRate <= 0) return 1;
    return Math.max(1, Math.ceil((cost - b.currentlyAvailable) / b.restoreRate));
  }

  /** Whether a call of `cost` may go now, after a wait, or not at all (unknown stores go). Takes the points. */
  admit(store: string, cost: number): Admission {
    const b = this.current(store);
    if (!b) return { wait: 0 };
    const missing = cost - b.currentlyAvailable;
    const wait = missing <= 0 ? 0 : Math.ceil((missing / b.restoreRate) * 1000);
    if (wait > this.maxWaitMs) return { refuse: true, retryAfterSeconds: this.retryAfterSeconds(store, cost) };
    // Taken now: the next caller sees them gone even before this call's answer reports Shopify's count.
    this.buckets.set(store, { ...b, currentlyAvailable: b.currentlyAvailable - cost });
    return { wait };
  }

  /** Shopify's count from an answer (a throttled one included). */
  report(store: string, status: ThrottleStatus): void {
    this.buckets.set(store, { ...status, at: this.now() });
  }
}
