import { formatAge, listFilters, NARROW_COLUMNS, tableRows, webUiLink, WIDE_COLUMNS } from '../../src/cli/creations';

describe('labelctl creations: pure parts', () => {
  it('links the workflow’s page in the Web UI, or the list by LabelCreationId when a later creation took its ID', () => {
    const workflowId = 'label-creation/st_1/key 1';
    expect(webUiLink('http://ui.example:8233', 'prod ns', { id: 'lcr_1', workflowId, reused: false })).toBe(
      'http://ui.example:8233/namespaces/prod%20ns/workflows/label-creation%2Fst_1%2Fkey%201',
    );
    expect(webUiLink('http://ui.example:8233', 'default', { id: 'lcr_1', workflowId, reused: true })).toBe(
      'http://ui.example:8233/namespaces/default/workflows?query=LabelCreationId%3D%22lcr_1%22',
    );
    expect(webUiLink(undefined, 'default', { id: 'lcr_1', workflowId, reused: false })).toBeNull();
  });

  it('keeps the default table narrow: the status, the error code and the attention’s reason, not the links', () => {
    const row = {
      id: 'lcr_S5mJ6zWc0pJgXr5vH2kQ9dTa',
      store_id: 'st_Y8ZvkEvYF9yT9Y847iIDiXjS',
      status: 'needs_attention' as const,
      phase: null,
      order: '#1013',
      error_code: null,
      idempotency_key: 'first-label-17957940881070',
      attention: {
        reason: 'carrier_timeout',
        shipment_at_carrier: 'unknown',
        carrier: 'carrier_a',
        sent_at: '2026-11-27T10:00:00Z',
        resolve_allowed_at: '2026-11-27T10:15:00Z',
      },
      created_at: '2026-11-27T10:00:00Z',
      age: '17m',
      workflow_id: 'label-creation/st_Y8ZvkEvYF9yT9Y847iIDiXjS/first-label-17957940881070',
      web_ui_url:
        'http://127.0.0.1:8233/namespaces/default/workflows/label-creation%2Fst_Y8ZvkEvYF9yT9Y847iIDiXjS%2Ffirst-label-17957940881070',
    };
    const failed = {
      ...row,
      id: 'lcr_A5mJ6zWc0pJgXr5vH2kQ9dTb',
      status: 'failed' as const,
      attention: null,
      error_code: 'carrier_rejected',
    };
    const narrow = tableRows([row, failed], false).map((r) => NARROW_COLUMNS.map((c) => (r[c] as string | null) ?? ''));
    expect(narrow).toEqual([
      ['lcr_S5mJ6zWc0pJgXr5vH2kQ9dTa', 'needs_attention', '#1013', '', 'carrier_timeout', '17m'],
      ['lcr_A5mJ6zWc0pJgXr5vH2kQ9dTb', 'failed', '#1013', 'carrier_rejected', '', '17m'],
    ]);
    // With two spaces between columns, a row of the narrow table stays within 100 characters.
    const widths = NARROW_COLUMNS.map((c, i) => Math.max(c.length, ...narrow.map((cells) => cells[i]!.length)));
    expect(widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1)).toBeLessThanOrEqual(100);
    expect(WIDE_COLUMNS).toEqual(expect.arrayContaining([...NARROW_COLUMNS, 'store_id', 'workflow_id', 'web_ui_url']));
    expect(tableRows([row], true)[0]!.attention).toBe('carrier_timeout (shipment unknown)');
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
