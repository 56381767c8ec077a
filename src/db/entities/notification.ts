import { EntitySchema } from '@mikro-orm/core';

/** Outbox row: written in the same transaction as the change it reports, delivered by a scheduled workflow. */
export class Notification {
  id!: string;
  storeId!: string;
  kind!: string;
  toAddress!: string;
  subject!: string;
  body!: string;
  createdAt!: Date;
  sentAt!: Date | null;
  attempts!: number;
  lastError!: string | null;
  /** When an unsent mail is tried next (backoff after failures). */
  nextAttemptAt!: Date;
}

export const NotificationSchema = new EntitySchema<Notification>({
  class: Notification,
  tableName: 'notifications',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    storeId: { type: 'string', fieldName: 'store_id' },
    kind: { type: 'string' },
    toAddress: { type: 'string', fieldName: 'to_address' },
    subject: { type: 'string' },
    body: { type: 'text' },
    createdAt: { type: 'Date', fieldName: 'created_at', columnType: 'timestamptz' },
    sentAt: { type: 'Date', nullable: true, fieldName: 'sent_at', columnType: 'timestamptz' },
    attempts: { type: 'integer', default: 0 },
    lastError: { type: 'text', nullable: true, fieldName: 'last_error' },
    nextAttemptAt: { type: 'Date', fieldName: 'next_attempt_at', columnType: 'timestamptz', defaultRaw: 'now()' },
  },
});
