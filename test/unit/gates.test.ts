import type { StoreGates } from '../../src/access/stores';
import { gateRefusal, HOW_TO_ENABLE } from '../../src/http/gates';

const open: StoreGates = {
  appInstalled: true,
  apiEnabled: true,
  pausedBySupport: false,
  subscriptionActive: true,
  freeAccess: false,
  writeAccess: true,
};
const support = 'help@example.com';

describe('gateRefusal (spec order: access, paused, plan, write)', () => {
  it.each<[string, Partial<StoreGates>, boolean, string | null]>([
    ['all open, read', {}, false, null],
    ['all open, write', {}, true, null],
    ['free access instead of a subscription', { subscriptionActive: false, freeAccess: true }, true, null],
    ['app not installed', { appInstalled: false }, false, 'access_required'],
    [
      'app not installed wins over everything',
      { appInstalled: false, apiEnabled: false, pausedBySupport: true, subscriptionActive: false, writeAccess: false },
      true,
      'access_required',
    ],
    ['API not enabled', { apiEnabled: false }, false, 'access_required'],
    ['API not enabled wins over paused', { apiEnabled: false, pausedBySupport: true }, false, 'access_required'],
    ['paused', { pausedBySupport: true }, false, 'api_paused'],
    ['paused wins over plan', { pausedBySupport: true, subscriptionActive: false }, false, 'api_paused'],
    ['no plan', { subscriptionActive: false, freeAccess: false }, false, 'plan_required'],
    ['no plan wins over write', { subscriptionActive: false, writeAccess: false }, true, 'plan_required'],
    ['write access off on a write endpoint', { writeAccess: false }, true, 'write_access_required'],
    ['write access off on a read endpoint', { writeAccess: false }, false, null],
  ])('%s', (_name, gates, write, expected) => {
    const refusal = gateRefusal({ ...open, ...gates }, { write, supportEmail: support });
    expect(refusal?.code ?? null).toBe(expected);
  });

  it('omits how_to_enable when the app is not installed', () => {
    expect(gateRefusal({ ...open, appInstalled: false }, { write: false, supportEmail: support })?.details).toEqual({
      support_email: support,
    });
  });
  it('says how to enable the API when it is only switched off', () => {
    expect(gateRefusal({ ...open, apiEnabled: false }, { write: false, supportEmail: support })?.details).toEqual({
      how_to_enable: HOW_TO_ENABLE,
      support_email: support,
    });
  });
  it('write_access_required carries retry no / none', () => {
    expect(gateRefusal({ ...open, writeAccess: false }, { write: true, supportEmail: support })?.details).toEqual({
      retry: 'no',
      next_action: 'none',
    });
  });
});
