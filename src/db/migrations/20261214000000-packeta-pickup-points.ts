import { Migration } from '@mikro-orm/migrations';

/**
 * Packeta's pickup-point network as its feed last showed it (decisions 1220, 1221): one row per point of the branch and
 * box feeds, kept when it leaves the feed (`in_feed` false, `vanished_at`) so a point an order names is never lost;
 * and each feed file's version (its HTTP validators and the digest of its last body) with the outcome of its last
 * import. The nearest-point index is a GiST index over the point on the Earth's surface as a `cube` (contrib `cube`
 * and `earthdistance`: `ll_to_earth`), beside the country (btree_gist), over the points that can be offered.
 * `cube`, `earthdistance` and `btree_gist` are contrib extensions PostgreSQL trusts its database owners with; the
 * embedded PostgreSQL of `npm run dev` ships them too.
 */
export class Migration20261214000000PacketaPickupPoints extends Migration {
  override async up(): Promise<void> {
    this.addSql('create extension if not exists cube;');
    this.addSql('create extension if not exists earthdistance;');
    this.addSql('create extension if not exists btree_gist;');
    this.addSql(`
      create table packeta_pickup_points (
        id bigint primary key,
        feed_file text not null check (feed_file in ('branch', 'box')),
        box_type text null,
        name text not null,
        place text null,
        street text not null,
        city text not null,
        zip text not null,
        country text not null,
        latitude double precision not null,
        longitude double precision not null,
        -- ll_to_earth(latitude, longitude): a point on the Earth's surface, in metres from its centre.
        location cube not null,
        status_id smallint not null,
        display_frontend boolean not null,
        cod_allowed boolean not null,
        max_weight_kg integer null,
        open_since date null,
        open_until date null,
        enterable_until date null,
        opening_hours jsonb not null,
        content_hash text not null,
        in_feed boolean not null default true,
        first_seen_at timestamptz not null,
        changed_at timestamptz not null,
        vanished_at timestamptz null
      );`);
    this.addSql(`
      create index packeta_pickup_points_nearest_idx on packeta_pickup_points
        using gist (country, location) where in_feed and status_id = 1 and display_frontend;`);
    this.addSql(`
      create table packeta_feed_files (
        feed_file text primary key check (feed_file in ('branch', 'box')),
        etag text null,
        last_modified text null,
        digest text null,
        points integer null,
        checked_at timestamptz null,
        changed_at timestamptz null,
        failures_in_a_row integer not null default 0,
        last_error text null,
        last_failure_at timestamptz null
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists packeta_feed_files;');
    this.addSql('drop table if exists packeta_pickup_points;');
  }
}
