import {
  REFRESH_MARGIN_MS,
  refreshDue,
  tokenEndpointFailure,
  unauthorizedMeaning,
} from '../../src/platform/shopify/token-policy';

const now = new Date('2026-06-01T12:00:00Z');
const at = (ms: number) => new Date(now.getTime() + ms);

describe('refreshDue', () => {
  it.each([
    ['a token that never expires', null, false],
    ['an hour left', at(60 * 60_000), false],
    ['just outside the margin', at(REFRESH_MARGIN_MS + 1), false],
    ['exactly at the margin', at(REFRESH_MARGIN_MS), true],
    ['a minute left', at(60_000), true],
    ['already expired', at(-1), true],
  ])('%s -> %s', (_name, expiresAt, due) => {
    expect(refreshDue(expiresAt, now)).toBe(due);
  });

  it('takes a shorter margin', () => {
    expect(refreshDue(at(60_000), now, 30_000)).toBe(false);
    expect(refreshDue(at(20_000), now, 30_000)).toBe(true);
  });
});

describe('unauthorizedMeaning', () => {
  it.each([
    ['an expiring session', { refreshable: true, origin: 'app', afterRefresh: false }, 'refresh'],
    ['a refreshed token refused again', { refreshable: true, origin: 'app', afterRefresh: true }, 'access_lost'],
    ["the public app's non-expiring token", { refreshable: false, origin: 'app', afterRefresh: false }, 'access_lost'],
    ["a custom app's token", { refreshable: false, origin: 'custom_app', afterRefresh: false }, 'unavailable'],
    ['a token of unknown origin', { refreshable: false, origin: null, afterRefresh: false }, 'access_lost'],
  ] as const)('%s -> %s', (_name, context, meaning) => {
    expect(unauthorizedMeaning(context)).toBe(meaning);
  });
});

describe('tokenEndpointFailure', () => {
  it.each([
    [400, 'refused'],
    [401, 'refused'],
    [403, 'refused'],
    [429, 'lost'],
    [500, 'lost'],
    [503, 'lost'],
    [null, 'lost'],
  ] as const)('HTTP %s -> %s', (status, failure) => {
    expect(tokenEndpointFailure(status)).toBe(failure);
  });
});
