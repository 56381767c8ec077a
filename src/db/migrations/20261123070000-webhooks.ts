import { Migration } from '@mikro-orm/migrations';

/** Webhooks (decisions 0600-0609): endpoints, their sealed secrets, events, deliveries and every attempt. */
export class Migration20261123070000Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhook_endpoints (
        id text primary key,
        store_id text not null references stores (id) on delete cascade,
        url text not null,
        topics text[] not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        -- Removed endpoints stay for the delivery log; nothing is sent to them.
        removed_at timestamptz
      );`);
    this.addSql('create index webhook_endpoints_store on webhook_endpoints (store_id) where removed_at is null;');
    this.addSql(`
      create table webhook_endpoint_secrets (
        id bigserial primary key,
        endpoint_id text not null references webhook_endpoints (id) on delete cascade,
        secret_sealed text not null,
        secret_last4 text not null,
        created_at timestamptz not null,
        -- null: active until the next rotation; a rotation sets it to the end of the overlap.
        expires_at timestamptz
      );`);
    this.addSql('create index webhook_endpoint_secrets_endpoint on webhook_endpoint_secrets (endpoint_id);');
    this.addSql(`
      create table webhook_events (
        id text primary key,
        store_id text not null references stores (id) on delete cascade,
        topic text not null,
        resource_id text not null,
        -- The emitter's name for the change (succeeded, failed, needs_attention, ...): an activity retried after
        -- the event was written finds it instead of writing a second one.
        transition_key text not null,
        payload text not null,
        created_at timestamptz not null,
        unique (topic, resource_id, transition_key)
      );`);
    this.addSql(`
      create table webhook_deliveries (
        id text primary key,
        store_id text not null references stores (id) on delete cascade,
        event_id text not null references webhook_events (id) on delete cascade,
        endpoint_id text not null references webhook_endpoints (id) on delete cascade,
        workflow_id text not null unique,
        kind text not null check (kind in ('automatic', 'redelivery')),
        status text not null default 'pending' check (status in ('pending', 'delivered', 'failed', 'cancelled')),
        attempts integer not null default 0,
        last_status_code integer,
        next_attempt_at timestamptz,
        created_at timestamptz not null,
        finished_at timestamptz
      );`);
    this.addSql('create index webhook_deliveries_store on webhook_deliveries (store_id, created_at desc);');
    this.addSql('create index webhook_deliveries_event on webhook_deliveries (event_id, endpoint_id);');
    this.addSql(`
      create table webhook_delivery_attempts (
        delivery_id text not null references webhook_deliveries (id) on delete cascade,
        attempt integer not null,
        started_at timestamptz not null,
        status_code integer,
        duration_ms integer not null,
        error text,
        response_excerpt text,
        next_attempt_at timestamptz,
        primary key (delivery_id, attempt)
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists webhook_delivery_attempts;');
    this.addSql('drop table if exists webhook_deliveries;');
    this.addSql('drop table if exists webhook_events;');
    this.addSql('drop table if exists webhook_endpoint_secrets;');
    this.addSql('drop table if exists webhook_endpoints;');
  }
}
