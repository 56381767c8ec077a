import type { CreationRun } from '../../src/creation/creation-run';
import { boundKeyAnswer, neverMoved, runAnswer } from '../../src/creation/live-answer';
import { createLiveCreation, type LiveCreationInput, type LiveCreationPorts } from '../../src/creation/live-creation';
import type { CreationRow } from '../../src/creation/records';
import type { CreationDecision } from '../../src/domain/creation-decision';
import { DomainError } from '../../src/domain/errors';
import { refusal } from '../../src/domain/refusal';
import { createLogger } from '../../src/logger';
import { aRequest } from '../helpers/creation-context';
import { aCreationRow, fakeReservationPorts, type FakeBehaviour } from '../helpers/live-creation-fakes';

const DAY = 86_400_000;
const ANSWERED = aCreationRow({ status: 'succeeded', phase: null, label_ids: ['lbl_1'] });

const anInput = (overrides: Partial<LiveCreationInput> = {}): LiveCreationInput => ({
  storeId: 'sto_1',
  apiKeyId: 'key_1',
  idempotencyKey: 'key-00000001',
  waitSeconds: 20,
  request: aRequest(),
  keyBound: false,
  ...overrides,
});

const FOUND = { id: 'gid://shopify/Order/1001', legacyId: '1001', name: '#1001' };
/** What the checks on arrival decide unless told: labels to return, for the order they found. */
const RETURNS: CreationDecision = {
  kind: 'return_existing',
  order: FOUND,
  targetFulfillmentOrderIds: [],
  labelIds: ['lbl_1'],
  warnings: [],
};
const REFUSED: CreationDecision = {
  kind: 'refuse',
  order: FOUND,
  refusal: refusal('order_not_eligible', 'The order is cancelled.', { reason: 'order_cancelled' }),
};

interface Scenario {
  reservation?: FakeBehaviour;
  /** What the checks on arrival decide (`RETURNS` when absent), or how their read fails. */
  arrival?: CreationDecision | Error;
  /** Whether a lookup finds the key bound (another request bound it meanwhile). */
  keyBoundNow?: boolean;
  /** How the run's start-or-join fails (it takes the request when absent). */
  runFails?: () => unknown;
  /** The record read after a failed join; a record still `queued` when absent. */
  current?: CreationRow | null;
  readFails?: Error;
}

/** The service over fake ports; everything that happens is written to `events`, in order. */
function aService(scenario: Scenario = {}) {
  const fakes = fakeReservationPorts(scenario.reservation);
  const runs: CreationRun[] = [];
  const keyLookups: Array<{ now: Date }> = [];
  const ports: LiveCreationPorts = {
    reservation: fakes.ports,
    isKeyBound: async (input) => {
      keyLookups.push(input);
      return scenario.keyBoundNow ?? false;
    },
    decideOnArrival: async () => {
      fakes.events.push('decide');
      if (scenario.arrival instanceof Error) throw scenario.arrival;
      return scenario.arrival ?? RETURNS;
    },
    startOrJoin: async (run) => {
      runs.push(run);
      fakes.events.push('join');
      if (scenario.runFails) throw scenario.runFails();
    },
    readCreationById: async (id) => {
      if (scenario.readFails) throw scenario.readFails;
      return scenario.current === undefined ? aCreationRow({ id }) : scenario.current;
    },
    readAnswer: async () => {
      fakes.events.push('read answer');
      return ANSWERED;
    },
    now: () => new Date(Date.now()),
    sleep: async () => {},
    logger: createLogger('silent'),
    keyTtlMs: 30 * DAY,
    joinPolicy: { attempts: 3, backoffMs: 1 },
  };
  return {
    service: createLiveCreation(ports),
    events: fakes.events,
    claims: fakes.claims,
    runs,
    keyLookups,
  };
}

const count = (events: string[], event: string) => events.filter((e) => e === event).length;
const GIVE_BACKS = ['drop claim', 'release place', 'return unit'];

describe('createLiveCreation: reserve → join → answer', () => {
  it('a new creation reserves, joins its run with its queue place and wait, and answers from the record', async () => {
    const { service, events, runs, claims } = aService();
    const outcome = await service.create(anInput());
    expect(events.slice(0, 6)).toEqual(['take hold', 'decide', 'take unit', 'take place', 'claim', 'join']);
    expect(events.slice(6).sort()).toEqual(['read answer', 'release hold']);
    expect(runs).toEqual([expect.objectContaining({ waitSeconds: 20, queueTicketId: 'ticket_1' })]);
    expect(runs[0]?.row.id).toBe(claims[0]?.id);
    expect(outcome).toEqual({ row: ANSWERED, waitSeconds: 20, replayed: false });
  });

  it('claims at second precision and looks the key up when the edge did not', async () => {
    const { service, claims, keyLookups } = aService();
    await service.create(anInput({ keyBound: undefined }));
    expect(claims[0]!.now.getTime() % 1000).toBe(0);
    expect(keyLookups).toEqual([expect.objectContaining({ now: claims[0]?.now })]);
  });

  it('a repeat of a running creation joins it with no unit and no queue place', async () => {
    const running = (claim: { requestHash: string }) =>
      aCreationRow({ id: 'lcr_first', request_hash: claim.requestHash, phase: 'sending_to_carrier' });
    const { service, events, runs } = aService({ reservation: { boundTo: running } });
    await service.create(anInput({ keyBound: true }));
    expect(events.filter((e) => e !== 'read answer')).toEqual(['take hold', 'claim', 'join', 'release hold']);
    expect(runs[0]).toMatchObject({ row: { id: 'lcr_first' }, queueTicketId: null });
  });

  it.each<[CreationRow['status'], boolean]>([
    ['succeeded', true],
    ['failed', false],
    ['needs_attention', false],
  ])('a repeat of a %s creation answers at once (replayed: %s), without joining', async (status, replayed) => {
    const bound = (claim: { requestHash: string }) =>
      aCreationRow({ id: 'lcr_first', request_hash: claim.requestHash, status });
    const { service, events } = aService({ reservation: { boundTo: bound } });
    const outcome = await service.create(anInput({ keyBound: true }));
    expect(outcome).toMatchObject({ row: { id: 'lcr_first', status }, waitSeconds: 20, replayed });
    expect(events).toEqual(['take hold', 'claim', 'release hold']);
  });

  it('a request that lost the key to another one gives its unit and place back and answers as a repeat', async () => {
    const bound = (claim: { requestHash: string }) =>
      aCreationRow({ id: 'lcr_other', request_hash: claim.requestHash, status: 'succeeded', phase: null });
    const { service, events } = aService({ reservation: { boundTo: bound } });
    await expect(service.create(anInput())).resolves.toMatchObject({ replayed: true });
    expect(events).toEqual([
      'take hold',
      'decide',
      'take unit',
      'take place',
      'claim',
      'release place',
      'return unit',
      'release hold',
    ]);
  });

  it('refuses another request under a bound key with idempotency_conflict, and gives its hold back', async () => {
    const { service, events } = aService({ reservation: { boundTo: aCreationRow({ request_hash: 'other' }) } });
    const refused = await service.create(anInput({ keyBound: true })).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'idempotency_conflict',
      details: { idempotency_key: 'key-00000001', label_creation_id: 'lcr_new' },
    });
    expect(events).toEqual(['take hold', 'claim', 'release hold']);
  });

  it('a refused reservation binds nothing and joins nothing', async () => {
    const full = new DomainError('rate_limited');
    const { service, events } = aService({ reservation: { unitRefused: full } });
    await expect(service.create(anInput())).rejects.toBe(full);
    expect(events).not.toContain('join');
    expect(count(events, 'release hold')).toBe(1);
  });
});

describe('createLiveCreation: a run that cannot be reached', () => {
  const unreachable = () => new Error('Temporal unreachable');

  it('that never started: 503 temporarily_unavailable, everything given back once, the last taken first', async () => {
    const { service, events } = aService({ runFails: unreachable });
    const refused = await service.create(anInput()).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'temporarily_unavailable', retryAfterSeconds: 5 });
    expect(events.slice(events.indexOf('join') + 1)).toEqual([...GIVE_BACKS, 'release hold']);
  });

  it('for a repeat: 503, and only its hold goes back (the claim is the first request’s)', async () => {
    const queued = (claim: { requestHash: string }) =>
      aCreationRow({ id: 'lcr_first', request_hash: claim.requestHash });
    const { service, events } = aService({ reservation: { boundTo: queued }, runFails: unreachable });
    await expect(service.create(anInput({ keyBound: true }))).rejects.toMatchObject({
      code: 'temporarily_unavailable',
    });
    expect(events).toEqual(['take hold', 'claim', 'join', 'release hold']);
  });

  it('whose creation moved meanwhile: answered from the record, its resources stay with the run', async () => {
    const moved = aCreationRow({ status: 'needs_attention', phase: null });
    const { service, events } = aService({ runFails: unreachable, current: moved });
    await expect(service.create(anInput())).resolves.toMatchObject({ row: ANSWERED, replayed: false });
    for (const giveBack of GIVE_BACKS) expect(events).not.toContain(giveBack);
    expect(count(events, 'release hold')).toBe(1);
  });

  it('when whether it started is unknown (the record cannot be read): thrown, its resources left to the run', async () => {
    const down = new Error('database down');
    const { service, events } = aService({ runFails: unreachable, readFails: down });
    await expect(service.create(anInput())).rejects.toBe(down);
    for (const giveBack of GIVE_BACKS) expect(events).not.toContain(giveBack);
    expect(count(events, 'release hold')).toBe(1);
  });
});

describe('createLiveCreation: the checks on arrival (decision 0120)', () => {
  it('a refusal is thrown before anything is taken but the hold, which goes back: no unit, place, claim or run', async () => {
    const { service, events, claims, runs } = aService({ arrival: REFUSED });
    const refused = await service.create(anInput()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'order_not_eligible', details: { reason: 'order_cancelled' } });
    expect(events).toEqual(['take hold', 'decide', 'release hold']);
    expect([claims, runs]).toEqual([[], []]);
  });

  it('a refusal of a request whose key another request bound meanwhile: the idempotency table answers instead', async () => {
    const bound = (claim: { requestHash: string }) =>
      aCreationRow({ id: 'lcr_other', request_hash: claim.requestHash, status: 'succeeded', phase: null });
    const { service, events } = aService({ arrival: REFUSED, keyBoundNow: true, reservation: { boundTo: bound } });
    await expect(service.create(anInput())).resolves.toMatchObject({ row: { id: 'lcr_other' }, replayed: true });
    expect(events).toEqual(['take hold', 'decide', 'claim', 'release hold']);
  });

  it('a repeat of a bound key is not checked: the creation it joins was', async () => {
    const running = (claim: { requestHash: string }) => aCreationRow({ request_hash: claim.requestHash });
    const { service, events } = aService({ arrival: REFUSED, reservation: { boundTo: running } });
    await service.create(anInput({ keyBound: true }));
    expect(events).not.toContain('decide');
  });

  it('the claim names the order the checks found, so an early answer names it (an order named by name too)', async () => {
    const { service, claims } = aService();
    await service.create(anInput({ request: aRequest({ order_id: null, order_name: '1001' }), waitSeconds: 0 }));
    expect(claims[0]).toMatchObject({ order: { gid: FOUND.id, legacyId: '1001' }, orderName: '#1001' });
  });

  it('the platform refusing the installation access is answered on arrival, as the worker would at once', async () => {
    const denied = new DomainError('shopify_unavailable', { details: { what: 'order', access: 'read_orders' } });
    const { service, events } = aService({ arrival: denied });
    await expect(service.create(anInput())).rejects.toBe(denied);
    expect(events).toEqual(['take hold', 'decide', 'release hold']);
  });

  it('a read that fails decides nothing: the creation goes ahead with the order as the request names it', async () => {
    const { service, events, claims } = aService({ arrival: new Error('platform down') });
    await service.create(anInput());
    expect(events.slice(0, 5)).toEqual(['take hold', 'decide', 'take unit', 'take place', 'claim']);
    expect(claims[0]).toMatchObject({ order: { gid: FOUND.id, legacyId: '1001' }, orderName: null });
  });
});

describe('the answer mapping', () => {
  const claimed = aCreationRow();
  const request = { requestHash: 'hash', idempotencyKey: 'key-00000001' };

  it('boundKeyAnswer: none for a claim of its own or a running creation, which are joined', () => {
    expect(boundKeyAnswer({ claimed: true, row: claimed }, request, 20)).toBeNull();
    expect(boundKeyAnswer({ claimed: false, row: claimed }, request, 20)).toBeNull();
  });

  it('neverMoved: a record gone or still queued', () => {
    expect(neverMoved(null)).toBe(true);
    expect(neverMoved(aCreationRow())).toBe(true);
    expect(neverMoved(aCreationRow({ status: 'failed', phase: null }))).toBe(false);
  });

  it('runAnswer: the record now, or the claim’s row when it cannot be read; never a replay', () => {
    expect(runAnswer(claimed, ANSWERED, 3)).toEqual({ row: ANSWERED, waitSeconds: 3, replayed: false });
    expect(runAnswer(claimed, null, 0)).toEqual({ row: claimed, waitSeconds: 0, replayed: false });
  });
});
