import type { z } from 'zod';
import { MAX_ACTIVE_KEYS } from '../../access/api-keys';
import { effectiveScopes } from '../../access/scopes';
import { ApiKey } from '../../db/entities/api-key';
import { Store } from '../../db/entities/store';
import type { Orm } from '../../db/orm';
import { defineRoute } from '../../http/route';
import { isoSeconds } from '../../domain/wire-format';
import { shopSchema } from './schemas';

export function createShopRoutes(deps: { orm: Orm; requestLogRetentionMs: number }) {
  return [
    defineRoute({
      method: 'GET',
      path: '/shop',
      operationId: 'getShop',
      summary: 'The store, the calling key’s scopes and pinned version, and the store’s access gates',
      tag: 'Shop',
      access: { kind: 'key', scope: 'shop:read' },
      limits: 'read',
      responses: { 200: { description: 'The store', schema: shopSchema } },
      handler: async (ctx) => {
        const auth = ctx.state.auth!;
        const em = deps.orm.em.fork();
        const [store, key] = await Promise.all([
          em.findOneOrFail(Store, { id: auth.storeId }),
          em.findOneOrFail(ApiKey, { id: auth.apiKeyId }),
        ]);
        const body: z.input<typeof shopSchema> = {
          id: store.id,
          name: store.name,
          domain: store.domain,
          api_key: {
            id: key.id,
            name: key.name,
            scopes: effectiveScopes(key.scopes),
            pinned_version: key.pinnedVersion,
            created_at: isoSeconds(key.createdAt),
            expires_at: key.expiresAt ? isoSeconds(key.expiresAt) : null,
          },
          api_version: ctx.state.apiVersion,
          access: {
            api_enabled: store.apiEnabled,
            paused: store.pausedBySupport,
            plan: store.subscriptionActive ? 'subscription' : 'free_access',
            write_access: store.writeAccess,
          },
          limits: {
            max_active_api_keys: MAX_ACTIVE_KEYS,
            request_log_retention_days: Math.round(deps.requestLogRetentionMs / 86_400_000),
          },
        };
        ctx.body = body;
      },
    }),
  ];
}
