import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../db/entities/api-key';
import { newId } from '../ids';
import { CURRENT_VERSION } from '../domain/versions';
import { queueKeyNotification } from '../notifications/key-notifications';
import { scopesForNewKey } from './scopes';
import { hashSecret, newSecret } from './secrets';

export const MAX_ACTIVE_KEYS = 20;
export const ROTATION_OVERLAPS = { none: 0, '24h': 24 * 3_600_000, '7d': 7 * 24 * 3_600_000 } as const;
export type RotationOverlap = keyof typeof ROTATION_OVERLAPS;

export class ApiKeyError extends Error {}

export function isActive(key: Pick<ApiKey, 'revokedAt' | 'expiresAt'>, now: Date): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > now.getTime());
}

export async function activeKeyCount(em: EntityManager, storeId: string, now: Date): Promise<number> {
  return em.count(ApiKey, {
    storeId,
    revokedAt: null,
    $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
  });
}

/**
 * Serialises key changes of one store inside the caller's transaction, so the count of active keys and the insert
 * of a new one are one step: concurrent creates and rotations cannot make a 21st active key.
 */
async function lockStoreKeys(tx: EntityManager, storeId: string): Promise<void> {
  await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`api-keys:${storeId}`]);
}

async function refuseOverLimit(tx: EntityManager, storeId: string, now: Date, hint: string): Promise<void> {
  if ((await activeKeyCount(tx, storeId, now)) >= MAX_ACTIVE_KEYS) {
    throw new ApiKeyError(`the store already has ${MAX_ACTIVE_KEYS} active keys; ${hint}`);
  }
}

interface NewKey {
  storeId: string;
  name: string;
  scopes: readonly string[];
  now: Date;
  secret?: string;
  pinnedVersion?: string;
  rotatedFromId?: string;
}

function insertKey(tx: EntityManager, input: NewKey): { key: ApiKey; secret: string } {
  const secret = input.secret ?? newSecret();
  const key = tx.create(ApiKey, {
    id: newId('apiKey'),
    storeId: input.storeId,
    name: input.name,
    secretHash: hashSecret(secret),
    secretLast4: secret.slice(-4),
    scopes: scopesForNewKey(input.scopes, input.now),
    pinnedVersion: input.pinnedVersion ?? CURRENT_VERSION,
    createdAt: input.now,
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    rotatedFromId: input.rotatedFromId ?? null,
  });
  return { key, secret };
}

/** Creates a key pinned to the current version; the secret is returned once and only its hash is stored. */
export async function createApiKey(
  em: EntityManager,
  input: Omit<NewKey, 'rotatedFromId'>,
): Promise<{ key: ApiKey; secret: string }> {
  scopesForNewKey(input.scopes, input.now);
  return em.transactional(async (tx) => {
    await lockStoreKeys(tx, input.storeId);
    await refuseOverLimit(tx, input.storeId, input.now, 'revoke one first');
    const created = insertKey(tx, input);
    await queueKeyNotification(tx, { storeId: input.storeId, event: 'created', key: created.key, now: input.now });
    await tx.flush();
    return created;
  });
}

/**
 * Rotation (spec "Authentication" 4): a new key with the same name, scopes and pinned version; the old key keeps
 * working for the overlap (none, 24 hours by default, or 7 days) and then expires. During an overlap both keys are
 * active, so a store at the limit can rotate only with overlap `none`.
 */
export async function rotateApiKey(
  em: EntityManager,
  input: { storeId: string; keyId: string; overlap: RotationOverlap; now: Date },
): Promise<{ key: ApiKey; secret: string; previous: ApiKey }> {
  return em.transactional(async (tx) => {
    await lockStoreKeys(tx, input.storeId);
    const previous = await tx.findOne(ApiKey, { id: input.keyId, storeId: input.storeId });
    if (!previous || !isActive(previous, input.now))
      throw new ApiKeyError(`no active key ${input.keyId} in this store`);
    const expiresAt = new Date(input.now.getTime() + ROTATION_OVERLAPS[input.overlap]);
    if (!previous.expiresAt || previous.expiresAt > expiresAt) {
      previous.expiresAt = expiresAt;
      await tx.flush();
    }
    await refuseOverLimit(tx, input.storeId, input.now, 'rotate with overlap none, or revoke a key first');
    const created = insertKey(tx, {
      storeId: input.storeId,
      name: previous.name,
      scopes: previous.scopes,
      pinnedVersion: previous.pinnedVersion,
      rotatedFromId: previous.id,
      now: input.now,
    });
    // A rotation reports itself once, as `rotated`.
    await queueKeyNotification(tx, {
      storeId: input.storeId,
      event: 'rotated',
      key: created.key,
      previous,
      now: input.now,
    });
    await tx.flush();
    return { ...created, previous };
  });
}

/** Revoke stops a key at once. */
export async function revokeApiKey(
  em: EntityManager,
  input: { storeId: string; keyId: string; now: Date },
): Promise<ApiKey> {
  const key = await em.findOne(ApiKey, { id: input.keyId, storeId: input.storeId });
  if (!key) throw new ApiKeyError(`no key ${input.keyId} in this store`);
  if (key.revokedAt === null) {
    key.revokedAt = input.now;
    await queueKeyNotification(em, { storeId: input.storeId, event: 'revoked', key, now: input.now });
    await em.flush();
  }
  return key;
}
