import type { EntityManager } from '@mikro-orm/postgresql';
import { ROTATION_OVERLAPS, type RotationOverlap } from '../access/api-keys';
import { openValue, sealValue } from '../crypto/sealed-values';
import { isWebhookTopic, WEBHOOK_TOPICS, type WebhookTopic } from '../domain/webhooks';
import { newId, randomToken } from '../ids';

/**
 * A store's webhook endpoints and their signing secrets (decisions 0600, 0601, 0603). Secrets are `whsec_` plus 32
 * base62 characters, shown once when made and stored sealed under `SETTINGS_ENCRYPTION_KEY`, bound to the endpoint.
 */

/** A refusal of an operator's endpoint command; printed as one line. */
export class WebhookConfigError extends Error {
  override readonly name = 'WebhookConfigError';
}

/** At most this many endpoints per store: each event makes one delivery workflow per endpoint. */
export const MAX_ENDPOINTS_PER_STORE = 10;

export interface WebhookEndpoint {
  id: string;
  storeId: string;
  url: string;
  topics: WebhookTopic[];
  createdAt: Date;
  removedAt: Date | null;
}

export interface EndpointSecretInfo {
  endingIn: string;
  createdAt: Date;
  expiresAt: Date | null;
}

interface EndpointRow {
  id: string;
  store_id: string;
  url: string;
  topics: string[];
  created_at: Date;
  removed_at: Date | null;
}

const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  storeId: row.store_id,
  url: row.url,
  topics: row.topics.filter(isWebhookTopic),
  createdAt: new Date(row.created_at),
  removedAt: row.removed_at ? new Date(row.removed_at) : null,
});

const owner = (endpointId: string) => `webhook_endpoint:${endpointId}`;

export function newWebhookSecret(): string {
  return `whsec_${randomToken(32)}`;
}

/** `--topics a,b`: known topics only, no repeats; none given means every topic. */
export function parseTopics(value: string | undefined): WebhookTopic[] {
  if (value === undefined) return [...WEBHOOK_TOPICS];
  const topics = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (topics.length === 0) throw new WebhookConfigError('name at least one topic');
  for (const topic of topics)
    if (!isWebhookTopic(topic))
      throw new WebhookConfigError(`unknown topic "${topic.slice(0, 60)}" (topics: ${WEBHOOK_TOPICS.join(', ')})`);
  return [...new Set(topics)] as WebhookTopic[];
}

async function insertSecret(em: EntityManager, key: Buffer, endpointId: string, now: Date): Promise<string> {
  const secret = newWebhookSecret();
  await em.execute(
    `insert into webhook_endpoint_secrets (endpoint_id, secret_sealed, secret_last4, created_at) values (?, ?, ?, ?)`,
    [endpointId, sealValue(key, owner(endpointId), secret), secret.slice(-4), now],
  );
  return secret;
}

export async function addEndpoint(
  em: EntityManager,
  key: Buffer,
  input: { storeId: string; url: string; topics: WebhookTopic[]; now: Date },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  return em.transactional(async (tx) => {
    await tx.execute('select id from stores where id = ? for update', [input.storeId]);
    const [count] = await tx.execute<Array<{ n: number }>>(
      'select count(*)::int as n from webhook_endpoints where store_id = ? and removed_at is null',
      [input.storeId],
    );
    if ((count?.n ?? 0) >= MAX_ENDPOINTS_PER_STORE)
      throw new WebhookConfigError(`a store has at most ${MAX_ENDPOINTS_PER_STORE} endpoints; remove one first`);
    const id = newId('webhookEndpoint');
    const [row] = await tx.execute<EndpointRow[]>(
      `insert into webhook_endpoints (id, store_id, url, topics, created_at, updated_at)
         values (?, ?, ?, array[?]::text[], ?, ?) returning *`,
      [id, input.storeId, input.url, input.topics, input.now, input.now],
    );
    const secret = await insertSecret(tx, key, id, input.now);
    return { endpoint: toEndpoint(row!), secret };
  });
}

export async function listEndpoints(em: EntityManager, storeId: string): Promise<WebhookEndpoint[]> {
  const rows = await em.execute<EndpointRow[]>(
    'select * from webhook_endpoints where store_id = ? and removed_at is null order by created_at, seq',
    [storeId],
  );
  return rows.map(toEndpoint);
}

/** The store's endpoints that receive `topic` now. */
export async function subscribedEndpoints(
  em: EntityManager,
  storeId: string,
  topic: WebhookTopic,
): Promise<WebhookEndpoint[]> {
  const rows = await em.execute<EndpointRow[]>(
    `select * from webhook_endpoints where store_id = ? and removed_at is null and ? = any (topics)
      order by created_at, seq`,
    [storeId, topic],
  );
  return rows.map(toEndpoint);
}

/** An endpoint by ID, removed ones included (the delivery log names them). */
export async function findEndpoint(em: EntityManager, endpointId: string): Promise<WebhookEndpoint | null> {
  const [row] = await em.execute<EndpointRow[]>('select * from webhook_endpoints where id = ?', [endpointId]);
  return row ? toEndpoint(row) : null;
}

export async function removeEndpoint(em: EntityManager, endpointId: string, now: Date): Promise<WebhookEndpoint> {
  const [row] = await em.execute<EndpointRow[]>(
    `update webhook_endpoints set removed_at = ?, updated_at = ? where id = ? and removed_at is null returning *`,
    [now, now, endpointId],
  );
  if (!row) throw new WebhookConfigError(`no endpoint ${endpointId.slice(0, 60)}`);
  return toEndpoint(row);
}

/**
 * A new secret for the endpoint. The secrets active until now stay active for the overlap (`none`: they stop at
 * once), so every delivery in between carries one signature per active secret and the merchant can switch over.
 */
export async function rotateSecret(
  em: EntityManager,
  key: Buffer,
  input: { endpointId: string; overlap: RotationOverlap; now: Date },
): Promise<{ endpoint: WebhookEndpoint; secret: string; previousExpiresAt: Date }> {
  return em.transactional(async (tx) => {
    const [row] = await tx.execute<EndpointRow[]>(
      'select * from webhook_endpoints where id = ? and removed_at is null for update',
      [input.endpointId],
    );
    if (!row) throw new WebhookConfigError(`no endpoint ${input.endpointId.slice(0, 60)}`);
    const previousExpiresAt = new Date(input.now.getTime() + ROTATION_OVERLAPS[input.overlap]);
    await tx.execute(
      `update webhook_endpoint_secrets set expires_at = ?
        where endpoint_id = ? and (expires_at is null or expires_at > ?)`,
      [previousExpiresAt, input.endpointId, previousExpiresAt],
    );
    const secret = await insertSecret(tx, key, input.endpointId, input.now);
    return { endpoint: toEndpoint(row), secret, previousExpiresAt };
  });
}

interface SecretRow {
  secret_sealed: string;
  secret_last4: string;
  created_at: Date;
  expires_at: Date | null;
}

const activeSecretsSql = `select secret_sealed, secret_last4, created_at, expires_at from webhook_endpoint_secrets
  where endpoint_id = ? and (expires_at is null or expires_at > ?) order by created_at desc, id desc`;

export async function secretInfo(em: EntityManager, endpointId: string, now: Date): Promise<EndpointSecretInfo[]> {
  const rows = await em.execute<SecretRow[]>(activeSecretsSql, [endpointId, now]);
  return rows.map((r) => ({
    endingIn: r.secret_last4,
    createdAt: new Date(r.created_at),
    expiresAt: r.expires_at ? new Date(r.expires_at) : null,
  }));
}

/** The endpoint's active secrets, newest first; ones that do not open (the settings key changed) are left out. */
export async function activeSecrets(em: EntityManager, key: Buffer, endpointId: string, now: Date): Promise<string[]> {
  const rows = await em.execute<SecretRow[]>(activeSecretsSql, [endpointId, now]);
  return rows.flatMap((r) => {
    const secret = openValue(key, owner(endpointId), r.secret_sealed);
    return secret === null ? [] : [secret];
  });
}
