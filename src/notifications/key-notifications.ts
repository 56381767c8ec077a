import type { EntityManager } from '@mikro-orm/core';
import type { ApiKey } from '../db/entities/api-key';
import { Notification } from '../db/entities/notification';
import { Store } from '../db/entities/store';
import { isoSeconds } from '../domain/wire-format';

export type KeyEvent = 'created' | 'rotated' | 'revoked';

/**
 * Queues the e-mail the spec requires when a key is created, rotated or revoked ("Authentication" 4). It is
 * persisted with the caller's unit of work, so a key change and its notification commit together.
 */
export async function queueKeyNotification(
  em: EntityManager,
  input: { storeId: string; event: KeyEvent; key: ApiKey; previous?: ApiKey; now: Date },
): Promise<void> {
  const store = await em.findOneOrFail(Store, { id: input.storeId });
  const lines = [
    `Store: ${store.name} (${store.domain})`,
    `Key: ${input.key.name} (${input.key.id}, ending in ${input.key.secretLast4})`,
    `Scopes: ${input.key.scopes.join(', ')}`,
  ];
  if (input.event === 'rotated' && input.previous) {
    lines.push(
      `Replaces: ${input.previous.id}, which ${
        input.previous.expiresAt && input.previous.expiresAt > input.now
          ? `keeps working until ${isoSeconds(input.previous.expiresAt)}`
          : 'stopped working now'
      }`,
    );
  }
  lines.push(
    `When: ${isoSeconds(input.now)}`,
    '',
    'If you did not expect this change, revoke the key and contact support.',
  );
  em.create(Notification, {
    storeId: store.id,
    kind: `api_key.${input.event}`,
    toAddress: store.email,
    subject: `API key ${input.event}: ${input.key.name}`,
    body: lines.join('\n'),
    createdAt: input.now,
    sentAt: null,
    attempts: 0,
    nextAttemptAt: input.now,
    lastError: null,
  });
}
