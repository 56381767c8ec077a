import type { LabelCreationStatus } from './labels';
import { refusal, type Refusal } from './refusal';

/**
 * `POST /label-creations/{id}/resolve` (spec): whether a merchant's resolution of an unclear creation is taken. One
 * pure function, asked by the creation's workflow (the update's validator, which is the answer while the workflow
 * runs) and by the API over the stored record once the workflow has ended.
 */

export const RESOLVE_OUTCOMES = ['not_created', 'shipment_exists'] as const;
export type ResolveOutcome = (typeof RESOLVE_OUTCOMES)[number];

export interface Resolution {
  outcome: ResolveOutcome;
  /** The tracking number the merchant found at the carrier, when they give one. */
  trackingNumber: string | null;
  note: string | null;
  /** The API key (`ak_...`) that resolved. */
  resolvedBy: string;
  resolvedAt: string;
}

export interface ResolvableState {
  status: LabelCreationStatus;
  /** Null outside `needs_attention`. */
  attention: { shipmentAtCarrier: 'unknown' | 'exists'; resolveAllowedAt: string } | null;
  /** The resolution taken earlier, if any. */
  resolution: Pick<Resolution, 'outcome'> | null;
}

export type ResolveDecision =
  /** Taken: the creation moves (`not_created` -> failed, `shipment_exists` -> abandoned). */
  | { kind: 'accept' }
  /** The same outcome again: 200 with the creation as it is. */
  | { kind: 'repeat' }
  | { kind: 'refuse'; refusal: Refusal };

export function decideResolve(state: ResolvableState, outcome: ResolveOutcome, nowMs: number): ResolveDecision {
  if (state.resolution) {
    if (state.resolution.outcome === outcome) return { kind: 'repeat' };
    return {
      kind: 'refuse',
      refusal: refusal(
        'already_resolved',
        `The creation was already resolved with ${state.resolution.outcome}; a different outcome is not accepted.`,
        { outcome: state.resolution.outcome },
      ),
    };
  }
  if (state.status !== 'needs_attention' || !state.attention) {
    return {
      kind: 'refuse',
      refusal: refusal(
        'not_resolvable',
        `Only a creation in needs_attention can be resolved; this one is ${state.status}.`,
        {
          status: state.status,
        },
      ),
    };
  }
  if (outcome === 'shipment_exists') return { kind: 'accept' };
  if (state.attention.shipmentAtCarrier === 'exists') {
    return {
      kind: 'refuse',
      refusal: refusal(
        'not_resolvable',
        'The shipment exists at the carrier, so not_created cannot be accepted; resolve with shipment_exists.',
        { status: state.status },
      ),
    };
  }
  const allowedAt = Date.parse(state.attention.resolveAllowedAt);
  if (nowMs < allowedAt) {
    return {
      kind: 'refuse',
      refusal: refusal(
        'resolve_too_early',
        'not_created is accepted only from resolve_allowed_at: the carrier may still report the shipment.',
        { resolve_allowed_at: new Date(allowedAt).toISOString().replace(/\.\d{3}Z$/, 'Z') },
        Math.max(1, Math.ceil((allowedAt - nowMs) / 1000)),
      ),
    };
  }
  return { kind: 'accept' };
}

/**
 * The wait before the next look at the carrier while a creation needs attention: doubling from `initialMs` up to
 * `maxMs`, never past the abandon time. A 24-hour wait with production values makes about 60 looks
 * (docs/decisions/0015-needs-attention-loop.md).
 */
export function nextAttentionWait(
  attempt: number,
  opts: { initialMs: number; maxMs: number; nowMs: number; abandonAtMs: number },
): number {
  const backoff = Math.min(opts.maxMs, opts.initialMs * 2 ** Math.min(attempt, 30));
  return Math.max(0, Math.min(backoff, opts.abandonAtMs - opts.nowMs));
}
