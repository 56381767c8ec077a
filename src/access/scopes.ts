/** Scopes (spec "Authentication" 7): exact matches, no wildcard. */
export const READ_SCOPES = ['shop:read', 'labels:read', 'carriers:read', 'orders:read', 'pickup_points:read'] as const;
export const GRANTABLE_SCOPES = [
  'labels:print',
  'labels:write',
  'label_creations:resolve',
  'pickup_points:assign',
] as const;
export const ALL_SCOPES = [...READ_SCOPES, ...GRANTABLE_SCOPES] as const;
/** Retired on 2026-10-20; keys created with it hold `labels:print`. */
export const RETIRED_SCOPE_REPLACEMENTS: Readonly<Record<string, string>> = { 'label_documents:read': 'labels:print' };
/**
 * Spec "Authentication": on 20 October 2026 `labels:print` replaced `label_documents:read` and took over marking
 * printed from `labels:write`; "earlier keys hold `labels:print`" (docs/decisions/0032-labels-print-for-earlier-keys.md).
 */
export const LABELS_PRINT_SINCE = new Date('2026-10-20T00:00:00Z');
/** The scopes that gave part of what `labels:print` gives before it existed. */
export const PRINTING_BEFORE_LABELS_PRINT = ['labels:write', 'label_documents:read'] as const;

export type Scope = (typeof ALL_SCOPES)[number];

export class ScopeError extends Error {}

/**
 * The scopes a key holds: every read scope, the granted ones with retired names mapped to their replacement,
 * and `labels:read` implied by `labels:print` / `labels:write`. Sorted for stable output.
 */
export function effectiveScopes(granted: readonly string[]): Scope[] {
  const scopes = new Set<string>(READ_SCOPES);
  for (const scope of granted) scopes.add(RETIRED_SCOPE_REPLACEMENTS[scope] ?? scope);
  return ALL_SCOPES.filter((s) => scopes.has(s));
}

/**
 * Validates the scopes asked for at key creation; returns what is stored (retired names mapped). A key created before
 * `LABELS_PRINT_SINCE` with a scope that printed then holds `labels:print`; a key created since holds what it was given.
 */
export function scopesForNewKey(requested: readonly string[], createdAt: Date): Scope[] {
  const mapped = requested.map((s) => RETIRED_SCOPE_REPLACEMENTS[s] ?? s);
  for (const scope of mapped) {
    if (!(ALL_SCOPES as readonly string[]).includes(scope)) throw new ScopeError(`unknown scope "${scope}"`);
  }
  if (mapped.includes('label_creations:resolve') && !mapped.includes('labels:write')) {
    throw new ScopeError('label_creations:resolve is only granted together with labels:write');
  }
  const printedThen =
    createdAt.getTime() < LABELS_PRINT_SINCE.getTime() &&
    requested.some((s) => (PRINTING_BEFORE_LABELS_PRINT as readonly string[]).includes(s));
  return effectiveScopes(printedThen ? [...mapped, 'labels:print'] : mapped);
}

/** `effectiveScopes(granted).includes(required)` without building the set: every request of a key asks it. */
export function holdsScope(granted: readonly string[], required: string): boolean {
  if ((READ_SCOPES as readonly string[]).includes(required)) return true;
  if (!(ALL_SCOPES as readonly string[]).includes(required)) return false;
  return granted.some((scope) => (RETIRED_SCOPE_REPLACEMENTS[scope] ?? scope) === required);
}

/**
 * The granted scopes that give `required`, for the admission statement's mirror of `holdsScope`
 * (src/http/admission.ts): null when every key holds it (the read scopes), else the scope and its retired names.
 */
export function scopeGrantsFor(required: string): string[] | null {
  if ((READ_SCOPES as readonly string[]).includes(required)) return null;
  const retired = Object.keys(RETIRED_SCOPE_REPLACEMENTS).filter(
    (name) => RETIRED_SCOPE_REPLACEMENTS[name] === required,
  );
  return [required, ...retired];
}
