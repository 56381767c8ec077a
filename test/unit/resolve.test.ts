import { LABEL_CREATION_STATUSES } from '../../src/domain/labels';
import { decideResolve, nextAttentionWait, type ResolvableState } from '../../src/domain/resolve';

const SENT = Date.parse('2026-11-23T10:00:00Z');
const ALLOWED = '2026-11-23T10:15:00Z';
const unclear = (over: Partial<ResolvableState> = {}): ResolvableState => ({
  status: 'needs_attention',
  attention: { shipmentAtCarrier: 'unknown', resolveAllowedAt: ALLOWED },
  resolution: null,
  ...over,
});

describe('decideResolve (spec POST /label-creations/{id}/resolve)', () => {
  it('takes not_created at resolve_allowed_at and later, while the shipment is unknown', () => {
    expect(decideResolve(unclear(), 'not_created', Date.parse(ALLOWED))).toEqual({ kind: 'accept' });
    expect(decideResolve(unclear(), 'not_created', Date.parse(ALLOWED) + 3_600_000)).toEqual({ kind: 'accept' });
  });

  it('refuses not_created before resolve_allowed_at with resolve_too_early, naming the time and a Retry-After', () => {
    const decision = decideResolve(unclear(), 'not_created', SENT + 60_000);
    expect(decision).toEqual({
      kind: 'refuse',
      refusal: expect.objectContaining({
        code: 'resolve_too_early',
        details: { resolve_allowed_at: ALLOWED },
        retryAfterSeconds: 14 * 60,
      }),
    });
    // Less than a second left still asks for a one-second wait, never zero.
    const last = decideResolve(unclear(), 'not_created', Date.parse(ALLOWED) - 10);
    expect(last.kind === 'refuse' && last.refusal.retryAfterSeconds).toBe(1);
  });

  it('refuses not_created when the shipment exists (not_resolvable), at any time', () => {
    const exists = unclear({ attention: { shipmentAtCarrier: 'exists', resolveAllowedAt: ALLOWED } });
    for (const now of [SENT, Date.parse(ALLOWED) + 1]) {
      expect(decideResolve(exists, 'not_created', now)).toEqual({
        kind: 'refuse',
        refusal: expect.objectContaining({ code: 'not_resolvable', details: { status: 'needs_attention' } }),
      });
    }
  });

  it('takes shipment_exists at any time, whatever is known of the shipment', () => {
    expect(decideResolve(unclear(), 'shipment_exists', SENT)).toEqual({ kind: 'accept' });
    const exists = unclear({ attention: { shipmentAtCarrier: 'exists', resolveAllowedAt: ALLOWED } });
    expect(decideResolve(exists, 'shipment_exists', SENT)).toEqual({ kind: 'accept' });
  });

  it.each([
    ['failed', 'not_created'],
    ['abandoned', 'shipment_exists'],
  ] as const)(
    'answers a repeat of the outcome taken (now %s) as a repeat, and another outcome already_resolved',
    (status, outcome) => {
      const state: ResolvableState = { status, attention: null, resolution: { outcome } };
      expect(decideResolve(state, outcome, SENT)).toEqual({ kind: 'repeat' });
      const other = outcome === 'not_created' ? 'shipment_exists' : 'not_created';
      expect(decideResolve(state, other, SENT)).toEqual({
        kind: 'refuse',
        refusal: expect.objectContaining({ code: 'already_resolved', details: { outcome } }),
      });
    },
  );

  it('refuses every status but needs_attention without a resolution: not_resolvable with the status', () => {
    for (const status of LABEL_CREATION_STATUSES.filter((s) => s !== 'needs_attention')) {
      for (const outcome of ['not_created', 'shipment_exists'] as const) {
        expect(decideResolve({ status, attention: null, resolution: null }, outcome, SENT)).toEqual({
          kind: 'refuse',
          refusal: expect.objectContaining({ code: 'not_resolvable', details: { status } }),
        });
      }
    }
  });
});

describe('nextAttentionWait', () => {
  const opts = { initialMs: 60_000, maxMs: 30 * 60_000, nowMs: 0, abandonAtMs: 24 * 3_600_000 };

  it('doubles from the initial wait up to the maximum', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => nextAttentionWait(a, opts) / 60_000)).toEqual([1, 2, 4, 8, 16, 30, 30]);
    expect(nextAttentionWait(1000, opts)).toBe(30 * 60_000);
  });

  it('never waits past the abandon time', () => {
    expect(nextAttentionWait(5, { ...opts, nowMs: opts.abandonAtMs - 5_000 })).toBe(5_000);
    expect(nextAttentionWait(5, { ...opts, nowMs: opts.abandonAtMs + 5_000 })).toBe(0);
  });

  it('makes about sixty looks in a 24-hour wait with production values', () => {
    let now = 0;
    let looks = 0;
    while (now < opts.abandonAtMs) {
      looks += 1;
      now += nextAttentionWait(looks - 1, { ...opts, nowMs: now });
    }
    expect(looks).toBeGreaterThan(40);
    expect(looks).toBeLessThan(60);
  });
});
