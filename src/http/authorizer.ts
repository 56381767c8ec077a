import type { Pool } from 'pg';
import { ApiError } from './api-error';
import type { RouteDefinition } from './route';
import type { AppContext } from './state';
import type { StoreGates } from '../access/stores';
import { gateRefusal } from './gates';
import { holdsScope } from '../access/scopes';
import { hashSecret, hashesEqual, looksLikeSecret } from '../access/secrets';

/** An API key with its store's gates, as one plain row. */
export interface KeyRow {
  id: string;
  store_id: string;
  secret_hash: string;
  scopes: string[];
  pinned_version: string;
  revoked_at: Date | string | null;
  expires_at: Date | string | null;
  last_used_at: Date | string | null;
  app_installed: boolean;
  api_enabled: boolean;
  paused_by_support: boolean;
  subscription_active: boolean;
  free_access: boolean;
  write_access: boolean;
}

const KEY_LOOKUP = {
  name: 'api_key_lookup',
  text: `
    select k.id, k.store_id, k.secret_hash, k.scopes, k.pinned_version, k.revoked_at, k.expires_at, k.last_used_at,
           s.app_installed, s.api_enabled, s.paused_by_support, s.subscription_active, s.free_access, s.write_access
    from api_keys k join stores s on s.id = k.store_id
    where k.secret_hash = $1`,
};
const TOUCH = { name: 'api_key_touch', text: 'update api_keys set last_used_at = $1 where id = $2' };

// A lookup hash that matches no key: malformed and unknown keys do the same work as known ones.
const NO_KEY_HASH = '0'.repeat(64);
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * The credential of `Authorization: Bearer <key>`. No header, another scheme, or Bearer without anything after it is
 * 401 `unauthorized`; whatever follows `Bearer` is the credential, and a malformed one (`Bearer a b`) is a key that
 * matches nothing: 401 `invalid_token`, after the same lookup as any other (spec "Authentication" 1).
 */
export function bearerCredential(header: string | undefined): string {
  const match = /^\s*bearer(?:\s+(.*?))?\s*$/i.exec(header ?? '');
  if (!match || !match[1]) {
    throw new ApiError('unauthorized', {
      message: header ? 'Use the Bearer scheme: Authorization: Bearer <API_KEY>.' : undefined,
    });
  }
  return match[1];
}

/** The lookup hash of the request's key (401 `unauthorized` without a Bearer credential). */
export function requestKeyHash(ctx: AppContext): string {
  const credential = bearerCredential(ctx.get('Authorization') || undefined);
  return looksLikeSecret(credential) ? hashSecret(credential) : NO_KEY_HASH;
}

/** The key statements of the hot path, prepared on its pool (src/db/hot-pool.ts). */
export interface KeyStatements {
  find(hash: string): Promise<KeyRow | undefined>;
  /** `last_used_at`, at most once a minute per key. */
  touchIfStale(row: KeyRow, now: Date): Promise<void>;
}

export function keyStatements(pool: Pool): KeyStatements {
  return {
    find: async (hash) => (await pool.query<KeyRow>({ ...KEY_LOOKUP, values: [hash] })).rows[0],
    touchIfStale: async (row, now) => {
      if (row.last_used_at && now.getTime() - new Date(row.last_used_at).getTime() <= LAST_USED_GRANULARITY_MS) return;
      await pool.query({ ...TOUCH, values: [now, row.id] });
    },
  };
}

/**
 * Accepts a looked-up key for the route or throws the spec's refusal: unknown, malformed, revoked and expired keys
 * answer the same 401 `invalid_token`; then the store gates in the spec's order, then the route's scope. Sets
 * `ctx.state.auth` and the response's version once the key is known.
 */
export function acceptKey(
  ctx: AppContext,
  route: RouteDefinition,
  row: KeyRow | undefined,
  hash: string,
  now: Date,
  supportEmail: string,
): KeyRow {
  const usable =
    row !== undefined &&
    hashesEqual(row.secret_hash, hash) &&
    row.revoked_at === null &&
    (row.expires_at === null || new Date(row.expires_at).getTime() > now.getTime());
  if (!usable) throw new ApiError('invalid_token');

  const store: StoreGates = {
    appInstalled: row.app_installed,
    apiEnabled: row.api_enabled,
    pausedBySupport: row.paused_by_support,
    subscriptionActive: row.subscription_active,
    freeAccess: row.free_access,
    writeAccess: row.write_access,
  };
  ctx.state.auth = {
    storeId: row.store_id,
    apiKeyId: row.id,
    scopes: row.scopes,
    pinnedVersion: row.pinned_version,
  };
  ctx.state.apiVersion = ctx.state.requestedVersion ?? row.pinned_version;

  const access = route.access.kind === 'key' ? route.access : { scope: '', write: false };
  const refusal = gateRefusal(store, { write: access.write ?? false, supportEmail });
  if (refusal) throw refusal;
  if (!holdsScope(row.scopes, access.scope)) {
    throw new ApiError('insufficient_scope', {
      message: `This endpoint needs the \`${access.scope}\` scope.`,
      details: { required_scope: access.scope },
    });
  }
  return row;
}

/**
 * Authenticates the key, applies the store gates in the spec's order, then the route's scope: one prepared lookup of
 * key and store, read as a plain row, so a known-but-revoked key costs the same as an unknown one. Routes with a fixed
 * rate-limit class and no body authenticate in the admission statement instead (src/http/admission.ts).
 */
export function createAuthorizer(deps: { keys: KeyStatements; now: () => Date; supportEmail?: string }) {
  const supportEmail = deps.supportEmail ?? 'support@example.com';
  return async (ctx: AppContext, route: RouteDefinition): Promise<void> => {
    if (route.access.kind !== 'key') return;
    const hash = requestKeyHash(ctx);
    const row = await deps.keys.find(hash);
    const now = deps.now();
    acceptKey(ctx, route, row, hash, now, supportEmail);
    await deps.keys.touchIfStale(row!, now);
  };
}
