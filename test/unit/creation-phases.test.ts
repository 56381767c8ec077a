import { allowedSql, endSql, phaseSql } from '../../src/creation/transitions/phase-sql';
import type { StoredAttention } from '../../src/domain/creation-record';
import {
  applyCreationEvent,
  CREATION_EVENT_KINDS,
  CREATION_POSITIONS,
  eventInto,
  nextPosition,
  phaseAfter,
  placeOf,
  positionOf,
  statusAfter,
  type CreationEvent,
  type CreationEventKind,
  type CreationPosition,
  type CreationProgress,
} from '../../src/domain/creation-phases';
import { LABEL_CREATION_PHASES } from '../../src/domain/labels';

const attention: StoredAttention = {
  reason: 'carrier_timeout',
  shipmentAtCarrier: 'unknown',
  carrier: { code: 'carrier_a', name: 'Carrier A', accountId: 'ca_1' },
  carrierReference: null,
  carrierNote: null,
  sentAt: '2026-11-23T10:00:00.000Z',
  resolveAllowedAt: '2026-11-23T10:15:00.000Z',
};
const error = { code: 'carrier_rejected' as const, message: 'refused', details: { reason: 'other' } };
const waitingFor = {
  reason: 'fulfillment_order_held' as const,
  heldBy: 'creation' as const,
  labelCreationId: 'lcr_other',
  fulfillmentOrderIds: ['gid://shopify/FulfillmentOrder/1'],
};
const resolution = {
  outcome: 'shipment_exists' as const,
  trackingNumber: null,
  note: null,
  resolvedBy: 'ak_1',
  resolvedAt: '2026-11-23T10:20:00.000Z',
};

/** One event of each kind, with what it records. */
const EVENTS: Record<CreationEventKind, CreationEvent> = {
  prepare: { kind: 'prepare' },
  wait_for_lock: { kind: 'wait_for_lock', waitingFor },
  send: { kind: 'send' },
  await_carrier: { kind: 'await_carrier' },
  label_recorded: { kind: 'label_recorded', labelIds: ['lbl_1'] },
  finalize: { kind: 'finalize' },
  succeed: { kind: 'succeed', labelIds: ['lbl_1'] },
  fail: { kind: 'fail', error },
  need_attention: { kind: 'need_attention', attention },
  learn: { kind: 'learn', attention: { ...attention, shipmentAtCarrier: 'exists' }, labelIds: ['lbl_2'] },
  resolve: { kind: 'resolve', resolution },
  resolve_not_created: { kind: 'resolve_not_created', error },
  abandon: { kind: 'abandon' },
  stop: { kind: 'stop', status: 'succeeded' },
};

const PROCESSING = [...LABEL_CREATION_PHASES];
const BEFORE_CARRIER: CreationPosition[] = ['queued', 'preparing', 'waiting_for_lock'];
const CARRIER_CALLED: CreationPosition[] = ['sending_to_carrier', 'waiting_for_carrier', 'finalizing'];

/**
 * The table as the spec's flow reads, written out by hand: every position each event is allowed from and where it
 * leads. Every other pair is refused.
 */
const EXPECTED: Record<CreationEventKind, { from: CreationPosition[]; to: CreationPosition | 'same' }> = {
  prepare: { from: [...BEFORE_CARRIER, 'sending_to_carrier'], to: 'preparing' },
  wait_for_lock: { from: BEFORE_CARRIER, to: 'waiting_for_lock' },
  send: { from: [...BEFORE_CARRIER, 'sending_to_carrier'], to: 'sending_to_carrier' },
  await_carrier: { from: ['sending_to_carrier'], to: 'waiting_for_carrier' },
  label_recorded: { from: [...CARRIER_CALLED, 'needs_attention'], to: 'same' },
  finalize: { from: CARRIER_CALLED, to: 'finalizing' },
  succeed: { from: [...PROCESSING, 'needs_attention'], to: 'succeeded' },
  fail: { from: [...PROCESSING, 'needs_attention'], to: 'failed' },
  need_attention: { from: [...PROCESSING, 'needs_attention'], to: 'needs_attention' },
  learn: { from: ['needs_attention'], to: 'same' },
  resolve: { from: ['needs_attention'], to: 'same' },
  resolve_not_created: { from: ['needs_attention'], to: 'failed' },
  abandon: { from: ['needs_attention'], to: 'abandoned' },
  stop: { from: PROCESSING, to: 'succeeded' },
};

const cases = CREATION_EVENT_KINDS.flatMap((kind) => CREATION_POSITIONS.map((from) => [kind, from] as const));
const allowed = cases.filter(([kind, from]) => EXPECTED[kind].from.includes(from));
const refused = cases.filter(([kind, from]) => !EXPECTED[kind].from.includes(from));

const at = (position: CreationPosition, over: Partial<CreationProgress> = {}): CreationProgress => ({
  ...placeOf(position),
  waitingFor: position === 'waiting_for_lock' ? waitingFor : null,
  labelIds: [],
  error: null,
  attention: position === 'needs_attention' ? attention : null,
  resolution: null,
  ...over,
});

describe('the creation phase table (src/domain/creation-phases.ts)', () => {
  it('knows every event and every position', () => {
    expect([...CREATION_EVENT_KINDS].sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(CREATION_POSITIONS).toEqual([...PROCESSING, 'succeeded', 'failed', 'needs_attention', 'abandoned']);
    expect(allowed.length + refused.length).toBe(CREATION_EVENT_KINDS.length * CREATION_POSITIONS.length);
  });

  it.each(allowed)('allows %s from %s', (kind, from) => {
    const to = EXPECTED[kind].to === 'same' ? from : EXPECTED[kind].to;
    expect(nextPosition(from, EVENTS[kind])).toBe(to);
    const next = applyCreationEvent(at(from), EVENTS[kind])!;
    expect(next).not.toBeNull();
    expect(positionOf(next)).toBe(to);
  });

  it.each(refused)('refuses %s from %s, changing nothing', (kind, from) => {
    expect(nextPosition(from, EVENTS[kind])).toBeNull();
    expect(applyCreationEvent(at(from), EVENTS[kind])).toBeNull();
  });

  it('a stopped run takes the status its record has, whichever it is', () => {
    for (const status of ['succeeded', 'failed', 'needs_attention', 'abandoned'] as const) {
      expect(applyCreationEvent(at('preparing'), { kind: 'stop', status })).toMatchObject({ status, phase: null });
    }
  });
});

describe('what the events record', () => {
  it('waiting for a lock names what it waits for; any move clears it, an event that stays keeps it', () => {
    expect(applyCreationEvent(at('queued'), EVENTS.wait_for_lock)).toMatchObject({
      status: 'processing',
      phase: 'waiting_for_lock',
      waitingFor,
    });
    expect(applyCreationEvent(at('waiting_for_lock'), EVENTS.send)).toMatchObject({ waitingFor: null });
    expect(applyCreationEvent(at('waiting_for_lock'), EVENTS.fail)).toMatchObject({ waitingFor: null });
    const attended = at('needs_attention', { waitingFor: null, labelIds: ['lbl_0'] });
    expect(applyCreationEvent(attended, EVENTS.resolve)).toEqual({ ...attended, resolution });
  });

  it('succeeding records the labels; failing the error; needing attention the attention object', () => {
    expect(applyCreationEvent(at('finalizing'), EVENTS.succeed)).toEqual(at('succeeded', { labelIds: ['lbl_1'] }));
    expect(applyCreationEvent(at('preparing'), EVENTS.fail)).toEqual(at('failed', { error }));
    expect(applyCreationEvent(at('sending_to_carrier'), EVENTS.need_attention)).toEqual(at('needs_attention'));
    expect(applyCreationEvent(at('needs_attention'), EVENTS.resolve_not_created)).toEqual(
      at('failed', { error, attention }),
    );
  });

  it('a look that learned something updates the attention, and the labels when it found one', () => {
    const learned = applyCreationEvent(at('needs_attention'), EVENTS.learn)!;
    expect(learned).toMatchObject({ status: 'needs_attention', labelIds: ['lbl_2'] });
    expect(learned.attention?.shipmentAtCarrier).toBe('exists');
    const draft = applyCreationEvent(at('needs_attention', { labelIds: ['lbl_0'] }), {
      kind: 'learn',
      attention: { ...attention, carrierReference: 'D1' },
    })!;
    expect(draft).toMatchObject({ labelIds: ['lbl_0'], attention: { carrierReference: 'D1' } });
    expect(applyCreationEvent(at('waiting_for_carrier'), EVENTS.label_recorded)).toMatchObject({
      phase: 'waiting_for_carrier',
      labelIds: ['lbl_1'],
    });
  });

  it('never changes the state it is given', () => {
    const state = at('queued');
    const copy = structuredClone(state);
    applyCreationEvent(state, EVENTS.wait_for_lock);
    expect(state).toEqual(copy);
  });

  it('keeps what else the state carries (the workflow state’s creation ID)', () => {
    expect(applyCreationEvent({ ...at('queued'), creationId: 'lcr_1' }, EVENTS.send)).toMatchObject({
      creationId: 'lcr_1',
      phase: 'sending_to_carrier',
    });
  });
});

describe('positions, phases and statuses', () => {
  it.each(CREATION_POSITIONS)('%s is one status and phase, and back', (position) => {
    expect(positionOf(placeOf(position))).toBe(position);
  });

  it('a processing creation without a phase stands where it starts', () => {
    expect(positionOf({ status: 'processing', phase: null })).toBe('queued');
  });

  it('each phase but queued has the one event into it; each end status the events that end there', () => {
    expect(Object.fromEntries(PROCESSING.map((phase) => [phase, eventInto(phase)]))).toEqual({
      queued: null,
      preparing: 'prepare',
      waiting_for_lock: 'wait_for_lock',
      sending_to_carrier: 'send',
      waiting_for_carrier: 'await_carrier',
      finalizing: 'finalize',
    });
    const ends = CREATION_EVENT_KINDS.filter((kind) => statusAfter(kind)).map((kind) => [kind, statusAfter(kind)]);
    expect(Object.fromEntries(ends)).toEqual({
      succeed: 'succeeded',
      fail: 'failed',
      need_attention: 'needs_attention',
      resolve_not_created: 'failed',
      abandon: 'abandoned',
    });
    expect(CREATION_EVENT_KINDS.filter((kind) => !phaseAfter(kind) && !statusAfter(kind))).toEqual([
      'label_recorded',
      'learn',
      'resolve',
      'stop',
    ]);
  });
});

describe('the table as the record’s SQL (src/creation/transitions/phase-sql.ts; evaluated in PostgreSQL by test/integration/creation-phase-sql.test.ts)', () => {
  it('writes the target the table names: a phase within processing, or an end status with no phase', () => {
    for (const kind of CREATION_EVENT_KINDS) {
      const phase = phaseAfter(kind);
      const status = statusAfter(kind);
      if (phase) expect(phaseSql(kind)).toBe(`phase = '${phase}'`);
      else expect(() => phaseSql(kind)).toThrow();
      if (status) expect(endSql(kind)).toBe(`status = '${status}', phase = null, waiting_for = null`);
      else expect(() => endSql(kind)).toThrow();
    }
  });

  it('keeps the guards the statements always had where the table allows every phase of processing', () => {
    expect(allowedSql('fail')).toBe(`status in ('processing', 'needs_attention')`);
    expect(allowedSql('learn')).toBe(`status = 'needs_attention'`);
    expect(allowedSql('await_carrier', 'c.')).toBe(
      `(c.status = 'processing' and coalesce(c.phase, 'queued') = 'sending_to_carrier')`,
    );
    expect(allowedSql('label_recorded')).toBe(
      `(status = 'needs_attention' or (status = 'processing' and coalesce(phase, 'queued') in ('sending_to_carrier', 'waiting_for_carrier', 'finalizing')))`,
    );
  });
});
