import type { Orm } from '../db/orm';
import { ApiError } from '../http/api-error';
import type { RouteDefinition } from '../http/route';
import type { AppContext } from '../http/state';
import { gateRefusal, type StoreGates } from './gates';
import { holdsScope, effectiveScopes } from './scopes';
import { hashSecret, hashesEqual, looksLikeSecret } from './secrets';

interface KeyRow {
  id: string;
  store_id: string;
  secret_hash: string;
  scopes: string[];
  pinned_version: string;
  revoked_at: Date | null;
  expires_at: Date | null;
  last_used_at: Date | null;
  app_installed: boolean;
  api_enabled: boolean;
  paused_by_support: boolean;
  subscription_active: boolean;
  free_access: boolean;
  write_access: boolean;
}

const KEY_LOOKUP = `
  select k.id, k.store_id, k.secret_hash, k.scopes, k.pinned_version, k.revoked_at, k.expires_at, k.last_used_at,
         s.app_installed, s.api_enabled, s.paused_by_support, s.subscription_active, s.free_access, s.write_access
  from api_keys k join stores s on s.id = k.store_id
  where k.secret_hash = ?`;

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

/**
 * Authenticates the key, applies the store gates in the spec's order, then the route's scope. Unknown, malformed,
 * revoked and expired keys answer the same 401 `invalid_token` after the same database lookup.
 */
export function createAuthorizer(deps: { orm: Orm; now: () => Date; supportEmail?: string }) {
  const supportEmail = deps.supportEmail ?? 'support@example.com';
  return async (ctx: AppContext, route: RouteDefinition): Promise<void> => {
    if (route.access.kind !== 'key') return;
    const credential = bearerCredential(ctx.get('Authorization') || undefined);
    const hash = looksLikeSecret(credential) ? hashSecret(credential) : NO_KEY_HASH;
    const conn = deps.orm.em.fork();
    // One query for key and store, read as plain rows: a known-but-revoked key costs the same as an unknown one.
    const [row] = await conn.execute<KeyRow[]>(KEY_LOOKUP, [hash]);
    const now = deps.now();
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
      scopes: effectiveScopes(row.scopes),
      pinnedVersion: row.pinned_version,
    };
    ctx.state.apiVersion = ctx.state.requestedVersion ?? row.pinned_version;

    const refusal = gateRefusal(store, { write: route.access.write ?? false, supportEmail });
    if (refusal) throw refusal;
    if (!holdsScope(row.scopes, route.access.scope)) {
      throw new ApiError('insufficient_scope', {
        message: `This endpoint needs the \`${route.access.scope}\` scope.`,
        details: { required_scope: route.access.scope },
      });
    }
    if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() > LAST_USED_GRANULARITY_MS) {
      await conn.execute('update api_keys set last_used_at = ? where id = ?', [now, row.id]);
    }
  };
}
