import { BigIntType, EntitySchema, type Opt } from '@mikro-orm/core';

/** An API key; only the SHA-256 of its secret is stored (the secret is shown once, at creation). */
export class ApiKey {
  id!: string;
  storeId!: string;
  name!: string;
  secretHash!: string;
  /** Last four characters of the secret, so people can tell keys apart. */
  secretLast4!: string;
  scopes!: string[];
  pinnedVersion!: string;
  createdAt!: Date;
  /** Insertion order, from a sequence: breaks ties of `createdAt` in lists (docs/decisions/0103). */
  seq!: Opt<string>;
  /** Set when a rotation's overlap ends; null for keys that do not expire. */
  expiresAt!: Date | null;
  revokedAt!: Date | null;
  lastUsedAt!: Date | null;
  rotatedFromId!: string | null;
}

export const ApiKeySchema = new EntitySchema<ApiKey>({
  class: ApiKey,
  tableName: 'api_keys',
  properties: {
    id: { type: 'string', primary: true },
    storeId: { type: 'string', fieldName: 'store_id' },
    name: { type: 'string' },
    secretHash: { type: 'string', fieldName: 'secret_hash', unique: true },
    secretLast4: { type: 'string', fieldName: 'secret_last4' },
    scopes: { type: 'string[]', columnType: 'text[]' },
    pinnedVersion: { type: 'string', fieldName: 'pinned_version' },
    createdAt: { type: 'Date', fieldName: 'created_at', columnType: 'timestamptz' },
    seq: { type: new BigIntType('string'), autoincrement: true },
    expiresAt: { type: 'Date', nullable: true, fieldName: 'expires_at', columnType: 'timestamptz' },
    revokedAt: { type: 'Date', nullable: true, fieldName: 'revoked_at', columnType: 'timestamptz' },
    lastUsedAt: { type: 'Date', nullable: true, fieldName: 'last_used_at', columnType: 'timestamptz' },
    rotatedFromId: { type: 'string', nullable: true, fieldName: 'rotated_from_id' },
  },
});
