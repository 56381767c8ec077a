import { CarrierRejectedError, CarrierUnavailableError, hasPickupNetwork } from '../../src/carriers/port';
import { carrierOutcome, platformOutcome, timedPort } from '../../src/metrics/port-metrics';
import { PlatformUnavailableError } from '../../src/platform/port';

function recorder() {
  const calls: Array<[string, string]> = [];
  return {
    calls,
    record: (operation: string, outcome: string, seconds: number) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      calls.push([operation, outcome]);
    },
  };
}

describe('timedPort', () => {
  class Port {
    prefix = 'p';
    async ok(x: string) {
      return `${this.prefix}${x}`;
    }
    async refuses(): Promise<never> {
      throw new CarrierRejectedError('address_invalid', 'no such street');
    }
    searchPickupPoints = async () => [];
    findPickupPoint = async () => null;
    label() {
      return 'plain';
    }
  }

  it('records each settled call by method name and outcome, keeping the method’s own `this` and results', async () => {
    const { calls, record } = recorder();
    const port = timedPort(new Port(), carrierOutcome, record);
    await expect(port.ok('1')).resolves.toBe('p1');
    await expect(port.refuses()).rejects.toBeInstanceOf(CarrierRejectedError);
    expect(calls).toEqual([
      ['ok', 'ok'],
      ['refuses', 'rejected'],
    ]);
  });

  it('passes plain values and properties through unrecorded, and keeps capability checks true', () => {
    const { calls, record } = recorder();
    const port = timedPort(new Port(), carrierOutcome, record);
    expect(port.label()).toBe('plain');
    expect(port.prefix).toBe('p');
    expect(hasPickupNetwork(port as never)).toBe(true);
    expect(calls).toEqual([]);
  });
});

describe('outcomes', () => {
  it('names the carrier port’s documented errors, a carrier timeout as timeout, anything else error', () => {
    expect(carrierOutcome(new CarrierUnavailableError('carrier_error', 502))).toBe('unavailable');
    expect(carrierOutcome(new CarrierUnavailableError('timeout', null))).toBe('timeout');
    expect(carrierOutcome(new Error('bug'))).toBe('error');
    expect(platformOutcome(new PlatformUnavailableError('order', true, null))).toBe('unavailable');
    expect(platformOutcome(new TypeError('x'))).toBe('error');
  });
});
