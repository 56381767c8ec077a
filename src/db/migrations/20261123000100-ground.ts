import { Migration } from '@mikro-orm/migrations';

/**
 * Render leases know their owner (only the owner removes one), outbox mails wait with backoff instead of being dropped
 * after a fixed number of attempts, and in-flight idempotency keys hold a short lease that a crashed request loses.
 */
export class Migration20261123000100Ground extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table render_leases add column owner text not null default '';`);
    this.addSql('alter table render_leases alter column owner drop default;');
    this.addSql('alter table notifications add column next_attempt_at timestamptz not null default now();');
    this.addSql('drop index if exists notifications_pending_idx;');
    this.addSql('create index notifications_pending_idx on notifications (next_attempt_at) where sent_at is null;');
    this.addSql('alter table idempotency_keys add column owner text null;');
    this.addSql('alter table idempotency_keys add column lease_expires_at timestamptz null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table idempotency_keys drop column lease_expires_at;');
    this.addSql('alter table idempotency_keys drop column owner;');
    this.addSql('drop index if exists notifications_pending_idx;');
    this.addSql('alter table notifications drop column next_attempt_at;');
    this.addSql('create index notifications_pending_idx on notifications (created_at) where sent_at is null;');
    this.addSql('alter table render_leases drop column owner;');
  }
}
