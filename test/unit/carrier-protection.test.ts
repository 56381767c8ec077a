import {
  canonicalJson,
  decideCarrierProtection,
  protectionHorizonMs,
  secondsUntil,
  shipmentFingerprintText,
  slidingWindowBlock,
  SPEC_PROTECTION,
  type ProtectionSnapshot,
  type RecordedRefusal,
} from '../../src/domain/carrier-protection';
import type { CarrierCall } from '../../src/domain/creation-decision';
import { foGid, MINUTE, NOW } from '../helpers/creation-context';

const now = new Date(NOW);
const ago = (ms: number) => new Date(NOW - ms);
const HOUR = 60 * MINUTE;

const aSnapshot = (overrides: Partial<ProtectionSnapshot> = {}): ProtectionSnapshot => ({
  unclearStreak: { count: 0, lastAt: null },
  accountChangedAt: ago(30 * 24 * HOUR),
  accountRefusals: [],
  fingerprintRefusals: [],
  fulfillmentOrderRefusals: {},
  ...overrides,
});

const refusedAgo = (ms: number, reason = 'postcode_invalid', id = `lcr_${ms}`): RecordedRefusal => ({
  at: ago(ms),
  reason,
  labelCreationId: id,
});

const decide = (overrides: Partial<ProtectionSnapshot>) =>
  decideCarrierProtection(aSnapshot(overrides), SPEC_PROTECTION, now);

describe('slidingWindowBlock', () => {
  it.each([
    ['no events', [], 3, null],
    ['fewer than the limit', [1, 2], 3, null],
    ['the limit, all in the window: until the oldest of them leaves it', [1, 2, 3], 3, 60 - 3],
    ['more than the limit: the limit-th newest decides', [1, 2, 3, 50], 3, 60 - 3],
    ['events outside the window do not count', [1, 2, 61], 3, null],
    ['an event exactly at the window edge is out', [1, 2, 60], 3, null],
    ['order of the input does not matter', [3, 1, 2], 3, 60 - 3],
  ])('%s', (_name, minutesAgo, limit, blockedMinutesFromNow) => {
    const until = slidingWindowBlock(
      minutesAgo.map((m) => ago(m * MINUTE)),
      limit,
      60 * MINUTE,
      now,
    );
    expect(until).toEqual(blockedMinutesFromNow === null ? null : new Date(NOW + blockedMinutesFromNow * MINUTE));
  });

  it('events in the future (clock skew between processes) do not count', () => {
    expect(slidingWindowBlock([new Date(NOW + 1000), ago(1), ago(2)], 3, HOUR, now)).toBeNull();
  });

  it('a limit below 1 never blocks', () => {
    expect(slidingWindowBlock([ago(1)], 0, HOUR, now)).toBeNull();
  });
});

describe('secondsUntil', () => {
  it.each([
    [1500, 2],
    [1000, 1],
    [1, 1],
    [0, 1],
    [-5000, 1],
    [300_000, 300],
  ])('%i ms ahead is Retry-After %i', (ms, seconds) => {
    expect(secondsUntil(new Date(NOW + ms), now)).toBe(seconds);
  });
});

describe('decideCarrierProtection: circuit_open', () => {
  it('allows a clean account', () => {
    expect(decide({})).toEqual({ kind: 'allow' });
  });

  it('allows below the threshold of unclear results in a row', () => {
    expect(decide({ unclearStreak: { count: 4, lastAt: ago(MINUTE) } })).toEqual({ kind: 'allow' });
  });

  it('opens at the threshold: 503 carrier_unavailable, reason circuit_open, until the last unclear + 5 minutes', () => {
    const decision = decide({ unclearStreak: { count: 5, lastAt: ago(MINUTE) } });
    expect(decision).toEqual({
      kind: 'block',
      blockedUntil: new Date(NOW + 4 * MINUTE),
      refusal: {
        code: 'carrier_unavailable',
        message: expect.any(String),
        details: { reason: 'circuit_open', retry_after_seconds: 240, retry: 'later', next_action: 'retry_later' },
        retryAfterSeconds: 240,
      },
    });
  });

  it('is closed again once the open time has passed (the next call is the trial)', () => {
    expect(decide({ unclearStreak: { count: 5, lastAt: ago(5 * MINUTE) } })).toEqual({ kind: 'allow' });
    expect(decide({ unclearStreak: { count: 9, lastAt: ago(6 * MINUTE) } })).toEqual({ kind: 'allow' });
  });

  it('a streak without a time never opens', () => {
    expect(decide({ unclearStreak: { count: 5, lastAt: null } })).toEqual({ kind: 'allow' });
  });

  it('comes before every other block', () => {
    const decision = decide({
      unclearStreak: { count: 5, lastAt: ago(MINUTE) },
      accountRefusals: [1, 2, 3, 4, 5].map((m) => ago(m * MINUTE)),
      fingerprintRefusals: [refusedAgo(1), refusedAgo(2), refusedAgo(3)],
    });
    expect(decision.kind === 'block' && decision.refusal.details.reason).toBe('circuit_open');
  });
});

describe('decideCarrierProtection: account_rejecting', () => {
  const five = [1, 2, 3, 4, 8].map((m) => ago(m * MINUTE));

  it('5 refusals in 10 minutes: 503 carrier_unavailable, reason account_rejecting, retry after_fix', () => {
    const decision = decide({ accountRefusals: five });
    expect(decision).toEqual({
      kind: 'block',
      blockedUntil: new Date(NOW + 2 * MINUTE),
      refusal: {
        code: 'carrier_unavailable',
        message: expect.any(String),
        details: {
          reason: 'account_rejecting',
          retry_after_seconds: 120,
          retry: 'after_fix',
          next_action: 'fix_and_retry',
        },
        retryAfterSeconds: 120,
      },
    });
  });

  it('allows 4 refusals, or 5 spread over more than 10 minutes', () => {
    expect(decide({ accountRefusals: five.slice(0, 4) })).toEqual({ kind: 'allow' });
    expect(decide({ accountRefusals: [1, 2, 3, 4, 11].map((m) => ago(m * MINUTE)) })).toEqual({ kind: 'allow' });
  });

  it('refusals before the account was last changed do not count (the fix is a change to the account)', () => {
    expect(decide({ accountRefusals: five, accountChangedAt: ago(90_000) })).toEqual({ kind: 'allow' });
  });

  it('comes before the shipment’s own refusals', () => {
    const decision = decide({
      accountRefusals: five,
      fingerprintRefusals: [refusedAgo(1), refusedAgo(2), refusedAgo(3)],
    });
    expect(decision.kind === 'block' && decision.refusal.code).toBe('carrier_unavailable');
  });
});

describe('decideCarrierProtection: repeated_rejection', () => {
  it('the same shipment refused 3 times in 60 minutes: 422 with scope fingerprint and the last refusal', () => {
    const decision = decide({
      fingerprintRefusals: [
        refusedAgo(50 * MINUTE, 'address_invalid', 'lcr_old'),
        refusedAgo(2 * MINUTE, 'postcode_invalid', 'lcr_last'),
        refusedAgo(20 * MINUTE, 'postcode_invalid', 'lcr_mid'),
      ],
    });
    expect(decision).toEqual({
      kind: 'block',
      blockedUntil: new Date(NOW + 10 * MINUTE),
      refusal: {
        code: 'repeated_rejection',
        message: expect.any(String),
        details: {
          scope: 'fingerprint',
          blocked_until: '2026-11-01T12:10:00Z',
          carrier_rejected: { reason: 'postcode_invalid', label_creation_id: 'lcr_last' },
          retry: 'after_fix',
          next_action: 'fix_and_retry',
        },
        retryAfterSeconds: 600,
      },
    });
  });

  it('allows twice refused, or three times over more than 60 minutes', () => {
    expect(decide({ fingerprintRefusals: [refusedAgo(1), refusedAgo(2)] })).toEqual({ kind: 'allow' });
    expect(decide({ fingerprintRefusals: [refusedAgo(1), refusedAgo(2), refusedAgo(61 * MINUTE)] })).toEqual({
      kind: 'allow',
    });
  });

  it('blocked_until is rounded up to the second (wire timestamps have second precision)', () => {
    const decision = decide({ fingerprintRefusals: [refusedAgo(1), refusedAgo(2), refusedAgo(3 * MINUTE + 500)] });
    expect(decision.kind === 'block' && decision.refusal.details.blocked_until).toBe('2026-11-01T12:57:00Z');
  });

  it('30 refusals of a fulfillment order in 24 hours: scope fulfillment_order_daily', () => {
    const thirty = Array.from({ length: 30 }, (_, i) => refusedAgo((i + 1) * 10 * MINUTE, 'other', `lcr_${i}`));
    const decision = decide({ fulfillmentOrderRefusals: { [foGid(1)]: thirty, [foGid(2)]: thirty.slice(0, 3) } });
    expect(decision).toEqual({
      kind: 'block',
      blockedUntil: new Date(NOW + 24 * HOUR - 300 * MINUTE),
      refusal: expect.objectContaining({
        code: 'repeated_rejection',
        details: expect.objectContaining({
          scope: 'fulfillment_order_daily',
          carrier_rejected: { reason: 'other', label_creation_id: 'lcr_0' },
        }),
      }),
    });
  });

  it('29 refusals, or 30 over more than a day, allow', () => {
    const refusals = Array.from({ length: 30 }, (_, i) => refusedAgo((i + 1) * 49 * MINUTE));
    expect(decide({ fulfillmentOrderRefusals: { [foGid(1)]: refusals.slice(0, 29) } })).toEqual({ kind: 'allow' });
    expect(decide({ fulfillmentOrderRefusals: { [foGid(1)]: refusals } })).toEqual({ kind: 'allow' });
  });

  it('several blocked fulfillment orders: blocked until the last of them is free, naming the newest refusal', () => {
    const early = Array.from({ length: 30 }, (_, i) => refusedAgo((i + 10) * MINUTE, 'other', `lcr_a${i}`));
    const late = Array.from({ length: 30 }, (_, i) => refusedAgo((i + 1) * MINUTE, 'weight_out_of_range', `lcr_b${i}`));
    const decision = decide({ fulfillmentOrderRefusals: { [foGid(1)]: early, [foGid(2)]: late } });
    expect(decision.kind === 'block' && decision.blockedUntil).toEqual(new Date(NOW + 24 * HOUR - 30 * MINUTE));
    expect(decision.kind === 'block' && decision.refusal.details.carrier_rejected).toEqual({
      reason: 'weight_out_of_range',
      label_creation_id: 'lcr_b0',
    });
  });

  it('the fingerprint scope comes before the daily scope', () => {
    const thirty = Array.from({ length: 30 }, (_, i) => refusedAgo((i + 1) * MINUTE));
    const decision = decide({
      fingerprintRefusals: thirty.slice(0, 3),
      fulfillmentOrderRefusals: { [foGid(1)]: thirty },
    });
    expect(decision.kind === 'block' && decision.refusal.details.scope).toBe('fingerprint');
  });
});

describe('settings', () => {
  it('are the spec’s numbers, with 5 unclear results in a row as "several"', () => {
    expect(SPEC_PROTECTION).toEqual({
      circuitThreshold: 5,
      circuitOpenMs: 5 * MINUTE,
      accountRejectingLimit: 5,
      accountRejectingWindowMs: 10 * MINUTE,
      fingerprintLimit: 3,
      fingerprintWindowMs: HOUR,
      fulfillmentOrderDailyLimit: 30,
      fulfillmentOrderWindowMs: 24 * HOUR,
    });
  });

  it('the horizon is the longest window', () => {
    expect(protectionHorizonMs(SPEC_PROTECTION)).toBe(24 * HOUR);
    expect(protectionHorizonMs({ ...SPEC_PROTECTION, circuitOpenMs: 48 * HOUR })).toBe(48 * HOUR);
  });

  it('shorter settings apply (tests and operators shorten them)', () => {
    const decision = decideCarrierProtection(
      aSnapshot({ unclearStreak: { count: 2, lastAt: ago(1000) } }),
      { ...SPEC_PROTECTION, circuitThreshold: 2, circuitOpenMs: 3000 },
      now,
    );
    expect(decision.kind === 'block' && decision.refusal.retryAfterSeconds).toBe(2);
  });
});

describe('shipment fingerprint', () => {
  const call: CarrierCall = {
    carrierAccountId: 'ca_1',
    carrierCode: 'carrier_a',
    serviceCode: 'a_home',
    orderName: '#1001',
    recipient: { name: 'Jana', company: null },
    address: { street: 'Dlouhá 12', city: 'Praha', postcode: '110 00', country: 'CZ' },
    phone: '+420600111222',
    email: 'jana@example.com',
    pickupPoint: null,
    weightGrams: 1200,
    cod: { amount: '499.00', currency: 'CZK' },
    declaredValue: null,
    options: { consign_password: false },
  };
  const account = { id: 'ca_1', changedAt: new Date('2026-10-01T00:00:00Z') };

  it('is the same for the same shipment, whatever the key order', () => {
    const reordered = Object.fromEntries(Object.entries(call).reverse()) as unknown as CarrierCall;
    expect(shipmentFingerprintText(reordered, account)).toBe(shipmentFingerprintText(call, account));
  });

  it.each<[string, Partial<CarrierCall>]>([
    ['weight', { weightGrams: 1300 }],
    ['postcode', { address: { ...call.address, postcode: '110 01' } }],
    ['COD', { cod: { amount: '500.00', currency: 'CZK' } }],
    ['service', { serviceCode: 'a_pickup' }],
    ['option', { options: { consign_password: true } }],
    ['phone', { phone: null }],
  ])('changes with the %s', (_name, change) => {
    expect(shipmentFingerprintText({ ...call, ...change }, account)).not.toBe(shipmentFingerprintText(call, account));
  });

  it('changes with a change to the account, or another account', () => {
    const text = shipmentFingerprintText(call, account);
    expect(shipmentFingerprintText(call, { ...account, changedAt: new Date('2026-10-02T00:00:00Z') })).not.toBe(text);
    expect(shipmentFingerprintText(call, { ...account, id: 'ca_2' })).not.toBe(text);
  });
});

describe('canonicalJson', () => {
  it.each([
    [{ b: 1, a: [{ d: 2, c: 1 }] }, '{"a":[{"c":1,"d":2}],"b":1}'],
    [{ a: undefined, b: null }, '{"b":null}'],
    [[undefined, 1], '[null,1]'],
    ['x', '"x"'],
    [undefined, 'null'],
  ])('%j', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });
});
