import {
  ALL_SCOPES,
  effectiveScopes,
  holdsScope,
  RETIRED_SCOPE_REPLACEMENTS,
  ScopeError,
  scopeGrantsFor,
  scopesForNewKey,
  LABELS_PRINT_SINCE,
} from '../../src/access/scopes';

const READ = ['shop:read', 'labels:read', 'carriers:read', 'orders:read', 'pickup_points:read'];

describe('effectiveScopes', () => {
  it.each([
    [[], READ],
    [['labels:print'], [...READ, 'labels:print']],
    [['labels:write'], [...READ, 'labels:write']],
    [
      ['labels:write', 'label_creations:resolve'],
      [...READ, 'labels:write', 'label_creations:resolve'],
    ],
    [['pickup_points:assign'], [...READ, 'pickup_points:assign']],
    [['label_documents:read'], [...READ, 'labels:print']],
  ])('%j holds %j', (granted, expected) => {
    expect(effectiveScopes(granted)).toEqual(expected);
  });
});

describe('holdsScope', () => {
  it.each([
    [[], 'shop:read', true],
    [[], 'labels:read', true],
    [[], 'carriers:read', true],
    [[], 'orders:read', true],
    [[], 'pickup_points:read', true],
    [[], 'labels:print', false],
    [[], 'labels:write', false],
    [['labels:print'], 'labels:write', false],
    [['labels:write'], 'labels:print', false],
    [['labels:write'], 'label_creations:resolve', false],
    [['label_documents:read'], 'labels:print', true],
    [['labels:print'], 'labels:*', false],
    [['labels:write', 'label_creations:resolve'], 'label_creations:resolve', true],
    [[], 'pickup_points:assign', false],
  ])('%j -> %s: %s', (granted, required, expected) => {
    expect(holdsScope(granted, required)).toBe(expected);
  });

  it('answers as effectiveScopes does for every set of stored scopes (retired and unknown names too)', () => {
    const names = [...ALL_SCOPES, 'label_documents:read', 'labels:*'];
    const asked = [...names, 'admin'];
    for (let mask = 0; mask < 1 << names.length; mask += 1) {
      const granted = names.filter((_, i) => mask & (1 << i));
      for (const required of asked) {
        expect([granted, required, holdsScope(granted, required)]).toEqual([
          granted,
          required,
          (effectiveScopes(granted) as string[]).includes(required),
        ]);
      }
    }
  });
});

describe('scopesForNewKey', () => {
  const since = LABELS_PRINT_SINCE.getTime();
  const today = new Date(since + 40 * 86_400_000);

  it('maps the retired label_documents:read to labels:print', () => {
    expect(scopesForNewKey(['label_documents:read'], today)).toContain('labels:print');
    expect(scopesForNewKey(['label_documents:read'], today)).not.toContain('label_documents:read');
  });
  it('refuses label_creations:resolve without labels:write', () => {
    expect(() => scopesForNewKey(['label_creations:resolve'], today)).toThrow(ScopeError);
    expect(() => scopesForNewKey(['labels:print', 'label_creations:resolve'], today)).toThrow(
      /only granted together with labels:write/,
    );
  });
  it('refuses unknown scopes and wildcards', () => {
    expect(() => scopesForNewKey(['labels:*'], today)).toThrow(/unknown scope/);
    expect(() => scopesForNewKey(['admin'], today)).toThrow(ScopeError);
  });

  // Spec "Authentication": labels:print replaced label_documents:read on 20 October 2026 and took over marking printed
  // from labels:write; earlier keys hold labels:print.
  it.each([
    ['labels:write before 20 October 2026', ['labels:write'], since - 1, [...READ, 'labels:print', 'labels:write']],
    [
      'labels:write long before',
      ['labels:write', 'label_creations:resolve'],
      since - 30 * 86_400_000,
      [...READ, 'labels:print', 'labels:write', 'label_creations:resolve'],
    ],
    ['label_documents:read before', ['label_documents:read'], since - 1, [...READ, 'labels:print']],
    ['labels:write from 20 October 2026 on', ['labels:write'], since, [...READ, 'labels:write']],
    ['labels:write later', ['labels:write'], today.getTime(), [...READ, 'labels:write']],
    ['labels:print given later', ['labels:print'], today.getTime(), [...READ, 'labels:print']],
    ['no grant before', [], since - 1, READ],
    ['pickup_points:assign before', ['pickup_points:assign'], since - 1, [...READ, 'pickup_points:assign']],
  ])('%s holds %j', (_case, requested, createdAtMs, expected) => {
    expect(scopesForNewKey(requested, new Date(createdAtMs))).toEqual(expected);
  });
});

describe("scopeGrantsFor (the admission statement's mirror of holdsScope)", () => {
  const grantable = [...ALL_SCOPES, ...Object.keys(RETIRED_SCOPE_REPLACEMENTS)];
  // Every set of stored scopes a key can have, retired names included.
  const subsets = Array.from({ length: 2 ** grantable.length }, (_, mask) =>
    grantable.filter((_scope, i) => mask & (1 << i)),
  );

  it.each(ALL_SCOPES.map((s) => [s]))('agrees with holdsScope for %s on every stored scope set', (required) => {
    const grants = scopeGrantsFor(required);
    for (const stored of subsets) {
      const mirrored = grants === null || stored.some((s) => grants.includes(s));
      expect({ stored, held: mirrored }).toEqual({ stored, held: holdsScope(stored, required) });
    }
  });

  it('lets every key through for the read scopes, and names retired grants', () => {
    expect(scopeGrantsFor('labels:read')).toBeNull();
    expect(scopeGrantsFor('labels:print')).toEqual(['labels:print', 'label_documents:read']);
    expect(scopeGrantsFor('labels:write')).toEqual(['labels:write']);
  });
});
