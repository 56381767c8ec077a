import { takeWaitHold } from '../../src/creation/prefer-wait';
import { reserve, type ReservationPorts, type ReservationRequest } from '../../src/creation/reservation';
import type { BucketState } from '../../src/domain/rate-limits';
import {
  aClaim,
  aCreationRow,
  fakeReservationPorts,
  QUEUE_STATE,
  UNIT_STATE,
  type FakeBehaviour,
} from '../helpers/live-creation-fakes';

/** A request whose hold (`Prefer: wait`, 20 s unless told) is asked for as the service asks for it. */
const aRequest = (
  ports: ReservationPorts,
  { waitSeconds = 20, ...overrides }: Partial<ReservationRequest> & { waitSeconds?: number } = {},
): ReservationRequest => ({
  hold: takeWaitHold(ports, 'key_1', waitSeconds),
  repeat: false,
  createNew: false,
  claim: aClaim(),
  ...overrides,
});

const refusal = (name: string) => new Error(name);

async function reserveWith(
  behaviour: FakeBehaviour,
  request: Partial<ReservationRequest> & { waitSeconds?: number } = {},
) {
  const fakes = fakeReservationPorts(behaviour);
  const reservation = await reserve(fakes.ports, aRequest(fakes.ports, request));
  return { ...fakes, reservation };
}

describe('reserve: a creation takes its resources', () => {
  it('takes the hold, the unit, the queue place and then the claim, which names the place', async () => {
    const noted: BucketState[] = [];
    const { reservation, events, claims } = await reserveWith({}, { noteLimits: (states) => noted.push(...states) });
    expect(events).toEqual(['take hold', 'take unit', 'take place', 'claim']);
    expect(claims[0]?.queueTicketId).toBe('ticket_1');
    expect(reservation).toMatchObject({ claim: { claimed: true }, waitSeconds: 20, queueTicketId: 'ticket_1' });
    expect(noted).toEqual([UNIT_STATE, QUEUE_STATE]);
  });

  it('a repeat of a bound key takes a hold and finds its creation: no unit, no queue place', async () => {
    const bound = aCreationRow({ id: 'lcr_first' });
    const { reservation, events, claims } = await reserveWith({ boundTo: bound }, { repeat: true });
    expect(events).toEqual(['take hold', 'claim']);
    expect(claims[0]?.queueTicketId).toBeNull();
    expect(reservation).toMatchObject({ claim: { claimed: false, row: bound }, queueTicketId: null });
  });

  it('applies wait=0 when the key holds 8 waits already, and asks for no hold with wait=0', async () => {
    expect((await reserveWith({ holdsFull: true })).reservation.waitSeconds).toBe(0);
    const { reservation, events } = await reserveWith({}, { waitSeconds: 0 });
    expect(reservation.waitSeconds).toBe(0);
    expect(events).not.toContain('take hold');
  });

  it('gives back the unit and the place at once when another request bound the key meanwhile', async () => {
    const bound = aCreationRow({ id: 'lcr_other' });
    const { reservation, events } = await reserveWith({ boundTo: bound });
    expect(events).toEqual(['take hold', 'take unit', 'take place', 'claim', 'release place', 'return unit']);
    expect(reservation.queueTicketId).toBeNull();
    await reservation.release();
    expect(events.slice(6)).toEqual(['release hold']);
  });
});

describe('reserve: a refusal or failure on the way gives back what was taken, the last taken first', () => {
  it.each<[string, FakeBehaviour, string[]]>([
    ['a full day', { unitRefused: refusal('full day') }, ['release place', 'release hold']],
    ['a full queue', { placeRefused: refusal('full queue') }, ['return unit', 'release hold']],
    ['a failed claim', { claimFails: refusal('claim') }, ['release place', 'return unit', 'release hold']],
    ['a hold that cannot be asked', { holdFails: refusal('hold') }, ['drop claim', 'release place', 'return unit']],
  ])('%s', async (_, behaviour, givenBack) => {
    const { ports, events } = fakeReservationPorts(behaviour);
    const thrown = Object.values(behaviour)[0] as Error;
    await expect(reserve(ports, aRequest(ports))).rejects.toBe(thrown);
    const taken = events.filter((event) => event.startsWith('take') || event === 'claim');
    expect(events.slice(taken.length)).toEqual(givenBack);
  });

  it('throws the day’s refusal when both the unit and the place are refused', async () => {
    const day = refusal('full day');
    const { ports, events } = fakeReservationPorts({ unitRefused: day, placeRefused: refusal('full queue') });
    await expect(reserve(ports, aRequest(ports))).rejects.toBe(day);
    expect(events).toEqual(['take hold', 'take unit', 'take place', 'release hold']);
  });
});

describe('Reservation.release', () => {
  it('gives back everything the request holds, the last taken first, once however often it is called', async () => {
    const { reservation, events } = await reserveWith({});
    await Promise.all([reservation.release(), reservation.release()]);
    await reservation.release();
    expect(events.slice(4)).toEqual(['drop claim', 'release place', 'return unit', 'release hold']);
  });

  it('a second call waits for the give-back the first started, which keeps its order', async () => {
    const { ports, events } = fakeReservationPorts();
    let finishDrop = () => {};
    ports.claims.drop = () =>
      new Promise<void>((resolve) => {
        finishDrop = () => {
          events.push('claim dropped');
          resolve();
        };
      });
    const reservation = await reserve(ports, aRequest(ports));
    const first = reservation.release();
    let secondDone = false;
    const second = reservation.release().then(() => {
      secondDone = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondDone).toBe(false);
    finishDrop();
    await Promise.all([first, second]);
    expect(events.slice(4)).toEqual(['claim dropped', 'release place', 'return unit', 'release hold']);
  });

  it('after handOver gives back the hold only: the unit, the place and the claim are the run’s', async () => {
    const { reservation, events } = await reserveWith({});
    reservation.handOver();
    await reservation.release();
    await reservation.release();
    expect(events.slice(4)).toEqual(['release hold']);
  });

  it('never rejects: a failed give-back is left to its lease and the others still go back', async () => {
    const { reservation, events } = await reserveWith({ returnUnitFails: refusal('unit') });
    await expect(reservation.release()).resolves.toBeUndefined();
    expect(events.slice(4)).toEqual(['drop claim', 'release place', 'return unit', 'release hold']);
  });

  it('keeps the unit and the place with a claim that could not be dropped (a repeat may still run it)', async () => {
    const { reservation, events } = await reserveWith({ dropFails: refusal('drop') });
    await reservation.release();
    expect(events.slice(4)).toEqual(['drop claim', 'release hold']);
  });
});
