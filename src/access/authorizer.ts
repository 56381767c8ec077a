import type { Orm } from '../db/orm';
import { ApiKey } from '../db/entities/api-key';
import { Store } from '../db/entities/store';
import { ApiError } from '../http/api-error';
import type { RouteDefinition } from '../http/route';
import type { AppContext } from '../http/state';
import { gateRefusal } from './gates';
import { holdsScope, effectiveScopes } from './scopes';
import { hashSecret, hashesEqual, looksLikeSecret } from './secrets';

// A lookup hash that matches no key: malformed and unknown keys do the same work as known ones.
const NO_KEY_HASH = '0'.repeat(64);
const LAST_USED_GRANULARITY_MS = 60_000;

/** Parses `Authorization: Bearer <key>`; anything else is 401 `unauthorized`. */
export function bearerCredential(header: string | undefined): string {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) {
    throw new ApiError('unauthorized', {
      message: header ? 'Use the Bearer scheme: Authorization: Bearer <API_KEY>.' : undefined,
    });
  }
  return match[1]!;
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
    const em = deps.orm.em.fork();
    const key = await em.findOne(ApiKey, { secretHash: hash });
    const now = deps.now();
    const usable =
      key !== null &&
      hashesEqual(key.secretHash, hash) &&
      key.revokedAt === null &&
      (key.expiresAt === null || key.expiresAt.getTime() > now.getTime());
    if (!usable) throw new ApiError('invalid_token');

    const store = await em.findOneOrFail(Store, { id: key.storeId });
    ctx.state.auth = {
      storeId: store.id,
      apiKeyId: key.id,
      scopes: effectiveScopes(key.scopes),
      pinnedVersion: key.pinnedVersion,
    };
    ctx.state.apiVersion = ctx.state.requestedVersion ?? key.pinnedVersion;

    const refusal = gateRefusal(store, { write: route.access.write ?? false, supportEmail });
    if (refusal) throw refusal;
    if (!holdsScope(key.scopes, route.access.scope)) {
      throw new ApiError('insufficient_scope', {
        message: `This endpoint needs the \`${route.access.scope}\` scope.`,
        details: { required_scope: route.access.scope },
      });
    }
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
      await em.nativeUpdate(ApiKey, { id: key.id }, { lastUsedAt: now });
    }
  };
}
