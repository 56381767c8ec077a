import type { z } from 'zod';
import { MAX_ACTIVE_KEYS } from '../../access/api-keys';
import { effectiveScopes } from '../../access/scopes';
import type { Orm } from '../../db/orm';
import { readRows } from '../../db/rows';
import { shopByKeyHashStatement, shopByKeyIdStatement, shopRow } from '../../db/shop-query';
import { firstRow } from '../../http/read-plan';
import { defineRoute } from '../../http/route';
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
      // One statement with the admission (the key by its hash); a key's first request reads on its own (by its ID).
      read: {
        statement: (_input, storeId, keyHash) => shopByKeyHashStatement(storeId, keyHash),
        row: shopRow,
        answer: firstRow,
        fallback: async (_input, auth) =>
          firstRow(await readRows(deps.orm.em.fork(), shopByKeyIdStatement(auth.storeId, auth.apiKeyId), shopRow)),
      },
      handler: async (ctx, _input, row) => {
        const auth = ctx.state.auth!;
        // Keys are revoked, never deleted: the key that was just admitted has its row.
        if (!row) throw new Error(`no store row for the admitted key ${auth.apiKeyId}`);
        const body: z.input<typeof shopSchema> = {
          id: row.id,
          name: row.name,
          domain: row.domain,
          api_key: {
            id: row.key_id,
            name: row.key_name,
            scopes: effectiveScopes(row.key_scopes),
            pinned_version: row.key_pinned_version,
            created_at: row.key_created_at,
            expires_at: row.key_expires_at,
          },
          api_version: ctx.state.apiVersion,
          access: {
            api_enabled: row.api_enabled,
            paused: row.paused_by_support,
            plan: row.subscription_active ? 'subscription' : 'free_access',
            write_access: row.write_access,
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
