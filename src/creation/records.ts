import type { EntityManager } from '@mikro-orm/postgresql';
import { limitClause, runPrepared, type ReadStatement } from '../db/prepared';
import { labelRowsJson, type ViewRow } from '../db/labels-query';
import { firstThenOnDemand, inFlightPart } from '../db/updated-after';
import type { ResolvedBlock } from '../domain/creation-decision';
import type { RequestedWire } from '../domain/creation-request';
import type { WaitFor } from '../domain/existing-labels';
import type { LabelCreationPhase, LabelCreationStatus } from '../domain/labels';
import type { SideEffects, StoredAttention } from '../domain/creation-record';
import type { CreationError, CreationWarning } from '../domain/refusal';
import type { Resolution } from '../domain/resolve';

/**
 * The label creation records (`label_creations`): the projection every read of a creation is served from. The API
 * claims a record (binding the idempotency key) before the creation's workflow starts; from then on only the
 * workflow's activities write it. Plain SQL, plain rows (docs/decisions/0009-read-path.md).
 */

export interface CreationRow {
  id: string;
  store_id: string;
  status: LabelCreationStatus;
  phase: LabelCreationPhase | null;
  idempotency_key: string;
  request_hash: string;
  key_bound: boolean;
  api_key_id: string | null;
  order_gid: string | null;
  order_legacy_id: string | null;
  order_name: string | null;
  fulfillment_order_gids: string[];
  created: boolean | null;
  requested: RequestedWire;
  resolved: Partial<ResolvedBlock>;
  warnings: CreationWarning[];
  side_effects: Partial<SideEffects>;
  error: CreationError | null;
  attention: StoredAttention | null;
  /** The merchant's resolve, once taken. */
  resolution: Resolution | null;
  waiting_for: WaitFor | null;
  client_reference: string | null;
  workflow_id: string | null;
  label_ids: string[];
  /** The creation's labels as view rows, when the read carried them (`creationStatement`); else read apart. */
  label_rows?: ViewRow[];
  sent_at: string | null;
  carrier_account_id: string | null;
  created_at: string;
  updated_at: string;
  /** Insertion order (bigint, a string from the driver): breaks ties of `created_at` in lists. */
  seq: string;
}

const COLUMNS = `id, store_id, status, phase, idempotency_key, request_hash, key_bound, api_key_id, order_gid,
  order_legacy_id, order_name, fulfillment_order_gids, created, requested, resolved, warnings, side_effects, error,
  attention, resolution, waiting_for, client_reference, workflow_id, label_ids, sent_at, carrier_account_id, created_at,
  updated_at, seq`;

export interface NewClaim {
  id: string;
  storeId: string;
  apiKeyId: string;
  idempotencyKey: string;
  requestHash: string;
  requested: RequestedWire;
  clientReference: string | null;
  workflowId: string;
  /** The order when the request named it by ID (known before the workflow looks it up). */
  order: { gid: string; legacyId: string } | null;
  /** The order's name when the request named it by name, as given (the creation records the order's own once found). */
  orderName: string | null;
  /** The creation's place in its store's write queue (none for a creation that took none). */
  queueTicketId: string | null;
  now: Date;
  /** Spec "Limits": the key binds the creation for 30 days. */
  keyTtlMs: number;
}

export type ClaimResult = { claimed: true; row: CreationRow } | { claimed: false; row: CreationRow };

/**
 * Binds the idempotency key to a new creation record (`processing`, phase `queued`), unless a bound one exists: then
 * that one is returned. One bound record per store and key is the unique index `label_creations_bound_key_idx`, so
 * concurrent identical requests claim exactly once; a binding older than the key's 30 days is released first.
 */
export async function claimCreation(em: EntityManager, claim: NewClaim): Promise<ClaimResult> {
  let inserted = await insertClaim(em, claim);
  // The key is bound: when its binding is older than the key's 30 days, it is released and the claim tried again.
  if (!inserted[0]) {
    const released = await em.execute(
      `update label_creations set key_bound = false
        where store_id = ? and idempotency_key = ? and key_bound and created_at < ? returning id`,
      [claim.storeId, claim.idempotencyKey, new Date(claim.now.getTime() - claim.keyTtlMs)],
    );
    if (released.length > 0) inserted = await insertClaim(em, claim);
  }
  if (inserted[0]) return { claimed: true, row: inserted[0] };
  const [bound] = await em.execute<CreationRow[]>(
    `select ${COLUMNS} from label_creations where store_id = ? and idempotency_key = ? and key_bound`,
    [claim.storeId, claim.idempotencyKey],
  );
  // Released between the insert and the select (failed just now): claim again.
  return bound ? { claimed: false, row: bound } : claimCreation(em, claim);
}

/** The claim's insert: its row, or none when the key is bound. Prepared: every creation makes one. */
function insertClaim(em: EntityManager, claim: NewClaim): Promise<CreationRow[]> {
  return runPrepared<CreationRow>(
    em,
    `insert into label_creations (id, store_id, status, phase, idempotency_key, request_hash, key_bound, api_key_id,
       order_gid, order_legacy_id, order_name, queue_ticket_id, requested, client_reference, workflow_id, created_at,
       updated_at)
     values ($1, $2, 'processing', 'queued', $3, $4, true, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14)
     on conflict (store_id, idempotency_key) where key_bound do nothing
     returning ${COLUMNS}`,
    [
      claim.id,
      claim.storeId,
      claim.idempotencyKey,
      claim.requestHash,
      claim.apiKeyId,
      claim.order?.gid ?? null,
      claim.order?.legacyId ?? null,
      claim.orderName,
      claim.queueTicketId,
      JSON.stringify(claim.requested),
      claim.clientReference,
      claim.workflowId,
      claim.now,
      claim.now,
    ],
  );
}

/**
 * Whether the key is bound to a creation of the store (a repeat of it counts as a read, spec "Limits"). Prepared: every
 * live `POST /labels` asks.
 */
export async function isKeyBound(
  em: EntityManager,
  input: { storeId: string; idempotencyKey: string; now: Date; keyTtlMs: number },
): Promise<boolean> {
  const rows = await runPrepared(
    em,
    'select 1 from label_creations where store_id = $1 and idempotency_key = $2 and key_bound and created_at >= $3',
    [input.storeId, input.idempotencyKey, new Date(input.now.getTime() - input.keyTtlMs)],
  );
  return rows.length > 0;
}

/** Removes a claim whose workflow could not be started: nothing happened, so nothing stays bound. */
export async function dropClaim(em: EntityManager, id: string): Promise<void> {
  await em.execute(`delete from label_creations where id = ? and status = 'processing' and phase = 'queued'`, [id]);
}

/**
 * `GET /label-creations/{id}`'s read as a statement of its own, which rides the admission statement
 * (docs/decisions/0017-admission-in-one-statement.md): the same columns and row as `readCreation`, with the
 * creation's labels (`label_rows`), so the record a client polls is one statement.
 */
export function creationStatement(storeId: string, id: string): ReadStatement {
  return {
    text: `select ${COLUMNS}, ${labelRowsJson('c.store_id', 'c.label_ids')} as label_rows
             from label_creations c where c.store_id = $1 and c.id = $2`,
    values: [storeId, id],
  };
}

/** One creation of the store (another store's ID reads nothing), as the admission carries it; outside transactions. */
export async function readCreation(em: EntityManager, storeId: string, id: string): Promise<CreationRow | null> {
  const { text, values } = creationStatement(storeId, id);
  const [row] = await runPrepared<CreationRow>(em, text, values);
  return row ?? null;
}

export async function readCreationById(em: EntityManager, id: string): Promise<CreationRow | null> {
  const [row] = await em.execute<CreationRow[]>(`select ${COLUMNS} from label_creations where id = ?`, [id]);
  return row ?? null;
}

export interface CreationListFilters {
  /** null: every store's (the operator's `labelctl creations list`); the API always names the caller's store. */
  storeId: string | null;
  orderGid?: string;
  orderNameKey?: string;
  status?: LabelCreationStatus;
  idempotencyKey?: string;
  clientReference?: string;
  createdAfter?: Date;
  updatedAfter?: Date;
  createdBefore?: Date;
}

/**
 * A page of creations, newest first, by keyset (created_at, seq) after `after`: creations of one millisecond (a failed
 * attempt and its retry, a burst) in reverse insertion order, never by their random IDs.
 */
export async function readCreationPage(
  em: EntityManager,
  f: CreationListFilters,
  after: { createdAt: Date; seq: number } | null,
  limit: number,
): Promise<{ rows: CreationRow[]; hasMore: boolean }> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  // The next positional placeholder for `value`.
  const bind = (value: unknown) => `$${params.push(value)}`;
  const equal: Array<[string, unknown]> = [
    ['store_id', f.storeId ?? undefined],
    ['order_gid', f.orderGid],
    ['status', f.status],
    ['idempotency_key', f.idempotencyKey],
    ['client_reference', f.clientReference],
  ];
  for (const [column, value] of equal) {
    if (value === undefined) continue;
    clauses.push(`${column} = ${bind(value)}`);
  }
  if (f.orderNameKey !== undefined) {
    clauses.push(`lower(regexp_replace(order_name, '^#', '')) = ${bind(f.orderNameKey)}`);
  }
  if (f.createdAfter) {
    clauses.push(`created_at >= ${bind(f.createdAfter)}`);
  }
  if (f.createdBefore) {
    clauses.push(`created_at < ${bind(f.createdBefore)}`);
  }
  const cursor = after && { createdAt: bind(after.createdAt), seq: bind(after.seq) };
  if (cursor) clauses.push(`(created_at, seq) < (${cursor.createdAt}, ${cursor.seq})`);
  // A prepared statement per filter shape, its limit written in (`limitClause`): planned once, not on every page.
  const where = (more: string[]) =>
    [...clauses, ...more].length ? `where ${[...clauses, ...more].join(' and ')}` : '';
  const newestFirst = `order by created_at desc, seq desc ${limitClause(limit + 1)}`;
  let text = `select ${COLUMNS} from label_creations ${where([])} ${newestFirst}`;
  if (f.updatedAfter) {
    // Two reads at the cost of the page, not of the store (decisions 0104, 0109, 0119): creations created at or after
    // the bound in list order, then those created before it and updated since (their span holds the bound), newest
    // first from the GiST index on the span and `created_at`, which starts at the cursor and stops after a page.
    const bound = `${bind(f.updatedAfter)}::timestamptz`;
    const later = `select ${COLUMNS} from label_creations
      ${where([`created_at >= ${bound}`, `updated_at >= ${bound}`])} ${newestFirst}`;
    const spanning = inFlightPart({
      select: `select ${COLUMNS} from label_creations`,
      conditions: clauses,
      alias: '',
      bound,
      cursorAt: cursor?.createdAt ?? null,
      order: 'desc',
      rows: limit + 1,
    });
    text = firstThenOnDemand(later, spanning, 'created_at desc, seq desc', limit + 1);
  }
  const rows = await runPrepared<CreationRow>(em, text, params);
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}
