import { formatAge, listFilters, webUiLink } from '../../src/cli/creations';

describe('labelctl creations: pure parts', () => {
  it('links the Web UI list of the creation’s workflows by its LabelCreationId, or nothing without a UI', () => {
    expect(webUiLink('http://ui.example:8233', 'prod ns', 'lcr_1')).toBe(
      'http://ui.example:8233/namespaces/prod%20ns/workflows?query=LabelCreationId%3D%22lcr_1%22',
    );
    expect(webUiLink(undefined, 'default', 'lcr_1')).toBeNull();
  });

  it('reads --order as an order ID when it is one, else as a name', () => {
    const now = new Date('2026-11-01T12:00:00Z');
    expect(listFilters({ order: '1001', limit: 50 }, null, now)).toMatchObject({
      orderGid: 'gid://shopify/Order/1001',
    });
    expect(listFilters({ order: '#A-1001', limit: 50 }, 'st_1', now)).toMatchObject({
      storeId: 'st_1',
      orderNameKey: 'a-1001',
    });
  });

  it('turns ages into created_at bounds', () => {
    const now = new Date('2026-11-01T12:00:00Z');
    const filters = listFilters({ olderThan: 3_600_000, newerThan: 86_400_000, limit: 50 }, null, now);
    expect(filters.createdBefore).toEqual(new Date('2026-11-01T11:00:00Z'));
    expect(filters.createdAfter).toEqual(new Date('2026-10-31T12:00:00Z'));
  });

  it('formats ages in whole units, rounded down', () => {
    expect([
      formatAge(-5),
      formatAge(42_500),
      formatAge(17 * 60_000 + 59_000),
      formatAge(5 * 3_600_000),
      formatAge(3 * 86_400_000 + 1),
    ]).toEqual(['0s', '42s', '17m', '5h', '3d']);
  });
});
