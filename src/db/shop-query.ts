import type { ReadStatement } from './prepared';
import { columns as c, rowParser } from './rows';

/** The store and the calling key as `GET /shop` answers them; times already on the wire's second precision. */
export interface ShopRow {
  id: string;
  name: string;
  domain: string;
  api_enabled: boolean;
  paused_by_support: boolean;
  subscription_active: boolean;
  write_access: boolean;
  key_id: string;
  key_name: string;
  key_scopes: string[];
  key_pinned_version: string;
  key_created_at: string;
  key_expires_at: string | null;
}

/** `isoSeconds` in SQL: the wire's UTC time without fractions (truncated, as `toISOString().slice(0, 19)`). */
const wireTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

const SHOP_SELECT = `select s.id, s.name, s.domain, s.api_enabled, s.paused_by_support, s.subscription_active,
       s.write_access, k.id as key_id, k.name as key_name, k.scopes as key_scopes,
       k.pinned_version as key_pinned_version, ${wireTime('k.created_at')} as key_created_at,
       ${wireTime('k.expires_at')} as key_expires_at
  from stores s join api_keys k on k.store_id = s.id`;

/** The read `GET /shop` carries in its admission statement: the key is known there by its hash only. */
export function shopByKeyHashStatement(storeId: string, keyHash: string): ReadStatement {
  return { text: `${SHOP_SELECT} where s.id = $1 and k.secret_hash = $2`, values: [storeId, keyHash] };
}

/** The same read on its own (a key's first request), by the authenticated key's ID: the same columns. */
export function shopByKeyIdStatement(storeId: string, keyId: string): ReadStatement {
  return { text: `${SHOP_SELECT} where s.id = $1 and k.id = $2`, values: [storeId, keyId] };
}

/** The row of both statements, checked. */
export const shopRow = rowParser('shop', (r): ShopRow => ({
  id: c.text(r.id, 'id'),
  name: c.text(r.name, 'name'),
  domain: c.text(r.domain, 'domain'),
  api_enabled: c.boolean(r.api_enabled, 'api_enabled'),
  paused_by_support: c.boolean(r.paused_by_support, 'paused_by_support'),
  subscription_active: c.boolean(r.subscription_active, 'subscription_active'),
  write_access: c.boolean(r.write_access, 'write_access'),
  key_id: c.text(r.key_id, 'key_id'),
  key_name: c.text(r.key_name, 'key_name'),
  key_scopes: c.textArray(r.key_scopes, 'key_scopes'),
  key_pinned_version: c.text(r.key_pinned_version, 'key_pinned_version'),
  key_created_at: c.text(r.key_created_at, 'key_created_at'),
  key_expires_at: c.textOrNull(r.key_expires_at, 'key_expires_at'),
}));
