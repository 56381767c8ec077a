import { InvalidArgumentError, Option, type Command } from 'commander';
import type { EntityManager } from '@mikro-orm/postgresql';
import { creationWire } from '../api/label-creations/creation-wire';
import { readCreationById, readCreationPage, type CreationListFilters, type CreationRow } from '../creation/records';
import { LABEL_CREATION_STATUSES, type LabelCreationStatus } from '../domain/labels';
import { orderNameKey, parseOrderId } from '../domain/platform-ids';
import { parseDuration } from '../duration';
import { isoSeconds } from '../domain/wire-format';
import type { CliKitWithOrm, Row } from './kit';

/**
 * The creation's page in the Temporal Web UI: its workflow's page, which opens the workflow's latest run. A creation's
 * workflow ID is its store's and idempotency key's, which a later attempt with the same key reuses (after a failed
 * attempt): for a creation whose key a later one took (`reused`), the latest run is the other creation's, so the link is
 * the Web UI's list of the workflows carrying its `LabelCreationId` instead, which finds its own run (and, once it was
 * abandoned, its retention timer). Decisions 0802, 0806.
 */
export function webUiLink(
  webUiUrl: string | undefined,
  namespace: string,
  creation: { id: string; workflowId: string | null; reused: boolean },
): string | null {
  if (!webUiUrl) return null;
  const base = `${webUiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows`;
  if (creation.workflowId && !creation.reused) return `${base}/${encodeURIComponent(creation.workflowId)}`;
  return `${base}?query=${encodeURIComponent(`LabelCreationId="${creation.id}"`)}`;
}

/** Which of `rows` a later creation of the same workflow ID (the same store and key) followed. */
async function reusedWorkflowIds(em: EntityManager, rows: readonly CreationRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const reused = await em.execute<Array<{ id: string }>>(
    `select c.id from label_creations c
      where c.id in (?) and exists (
        select 1 from label_creations later where later.workflow_id = c.workflow_id and later.seq > c.seq)`,
    [rows.map((row) => row.id)],
  );
  return new Set(reused.map((r) => r.id));
}

export interface ListOptions {
  store?: string;
  status?: LabelCreationStatus;
  order?: string;
  key?: string;
  olderThan?: number;
  newerThan?: number;
  limit: number;
}

/** The list's filters as the projection's query takes them; `storeId` already looked up. */
export function listFilters(opts: ListOptions, storeId: string | null, now: Date): CreationListFilters {
  const filters: CreationListFilters = { storeId, status: opts.status, idempotencyKey: opts.key };
  if (opts.order !== undefined) {
    // An order ID (numeric or GID) or else its name (`#1001`, `1001` as a name only when it is not a number).
    const id = parseOrderId(opts.order.trim());
    if (id) filters.orderGid = id.gid;
    else filters.orderNameKey = orderNameKey(opts.order);
  }
  if (opts.olderThan !== undefined) filters.createdBefore = new Date(now.getTime() - opts.olderThan);
  if (opts.newerThan !== undefined) filters.createdAfter = new Date(now.getTime() - opts.newerThan);
  return filters;
}

export interface CreationSummary {
  id: string;
  store_id: string;
  status: LabelCreationStatus;
  phase: string | null;
  order: string | null;
  /** The code of the error that ended a failed creation (`carrier_rejected`, `resolved_not_created`, ...). */
  error_code: string | null;
  idempotency_key: string;
  attention: {
    reason: string;
    shipment_at_carrier: string;
    carrier: string;
    sent_at: string;
    resolve_allowed_at: string;
  } | null;
  created_at: string;
  age: string;
  workflow_id: string | null;
  web_ui_url: string | null;
}

/** One line of the list: what an operator looks for first, the attention above all. */
export function creationSummary(row: CreationRow, link: string | null, now: Date): CreationSummary {
  return {
    id: row.id,
    store_id: row.store_id,
    status: row.status,
    phase: row.phase,
    order: row.order_name ?? row.order_legacy_id,
    error_code: row.error?.code ?? null,
    idempotency_key: row.idempotency_key,
    attention: row.attention
      ? {
          reason: row.attention.reason,
          shipment_at_carrier: row.attention.shipmentAtCarrier,
          carrier: row.attention.carrier.code,
          sent_at: isoSeconds(new Date(row.attention.sentAt)),
          resolve_allowed_at: isoSeconds(new Date(row.attention.resolveAllowedAt)),
        }
      : null,
    created_at: isoSeconds(new Date(row.created_at)),
    age: formatAge(now.getTime() - new Date(row.created_at).getTime()),
    workflow_id: row.workflow_id,
    web_ui_url: link,
  };
}

/** Whole seconds, minutes, hours or days, rounded down: `42s`, `17m`, `5h`, `3d`. */
export function formatAge(ms: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ];
  for (const [unit, size] of units) if (ms >= size) return `${Math.floor(ms / size)}${unit}`;
  return `${Math.max(0, Math.floor(ms / 1000))}s`;
}

const attentionText = (a: CreationSummary['attention']) => (a ? `${a.reason} (shipment ${a.shipment_at_carrier})` : '');

/**
 * The list's columns: by default what fits a terminal (about 100 characters) and tells what happened, the error code
 * and the attention's reason included; `--wide` adds the store, the phase, the key, the workflow and its Web UI page.
 */
export const NARROW_COLUMNS = ['id', 'status', 'order', 'error_code', 'attention', 'age'];
export const WIDE_COLUMNS = [
  'id',
  'store_id',
  'status',
  'phase',
  'order',
  'error_code',
  'attention',
  'age',
  'idempotency_key',
  'workflow_id',
  'web_ui_url',
];

/** The table's rows: the attention as one phrase, in the narrow table its reason alone. */
export function tableRows(rows: readonly CreationSummary[], wide: boolean): Array<Record<string, unknown>> {
  return rows.map((r) => ({ ...r, attention: wide ? attentionText(r.attention) : (r.attention?.reason ?? '') }));
}

const duration = (value: string): number => {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};
const limit = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new InvalidArgumentError('expected a whole number from 1 to 1000');
  return n;
};

/**
 * `labelctl creations list|show`: label creations as the projection (`label_creations`) has them, with the attention,
 * the Temporal workflow ID and a link into the Temporal Web UI (`TEMPORAL_UI_URL`), for an operator who would
 * otherwise need SQL or the `temporal` CLI (docs/operators.md, "Finding a creation").
 */
export function registerCreationCommands(program: Command, kit: CliKitWithOrm): void {
  const group = program.command('creations').description('label creations: find them, show one with its workflow');
  const link = (row: CreationRow, reused: ReadonlySet<string>) => {
    const { webUiUrl, namespace } = kit.config().temporal;
    return webUiLink(webUiUrl, namespace, { id: row.id, workflowId: row.workflow_id, reused: reused.has(row.id) });
  };

  group
    .command('list')
    .description('creations, newest first, every store unless --store')
    .option('--store <store>', 'only this store (ID or domain)')
    .addOption(new Option('--status <status>', 'only this status').choices(LABEL_CREATION_STATUSES))
    .option('--order <order>', 'only this order: its ID (numeric or GID) or its name (#1001)')
    .option('--key <idempotency_key>', 'only the creations of this Idempotency-Key')
    .option('--older-than <duration>', 'created at least this long ago (e.g. 30m, 24h)', duration)
    .option('--newer-than <duration>', 'created within this long (e.g. 1h, 7d)', duration)
    .option('--limit <n>', 'how many (1 to 1000)', limit, 50)
    .option('--wide', 'every column: store, phase, idempotency key, workflow ID, Web UI page')
    .action(async (opts: ListOptions & { wide?: boolean }) => {
      const now = new Date();
      const rows = await kit.withOrm(async (em) => {
        const storeId = opts.store ? (await kit.findStore(em, opts.store)).id : null;
        const page = await readCreationPage(em, listFilters(opts, storeId, now), null, opts.limit);
        const reused = await reusedWorkflowIds(em, page.rows);
        return page.rows.map((row) => creationSummary(row, link(row, reused), now));
      });
      kit.print(rows as unknown as Row[], () =>
        kit.table(tableRows(rows, opts.wide === true), opts.wide ? WIDE_COLUMNS : NARROW_COLUMNS),
      );
    });

  group
    .command('show <label_creation_id>')
    .description('one creation: the label creation object as the API serves it, its store, workflow and Web UI link')
    .action(async (id: string) => {
      const now = new Date();
      const { row, reused } = await kit.withOrm(async (em) => {
        const found = await readCreationById(em, id);
        return { row: found, reused: found ? await reusedWorkflowIds(em, [found]) : new Set<string>() };
      });
      if (!row) throw new CreationNotFound(`no label creation ${id.slice(0, 60)}`);
      const config = kit.config();
      const baseUrl = config.publicBaseUrl ?? `http://${config.host}:${config.port}`;
      const object = await creationWire(await kit.orm(), row, { baseUrl, now });
      const shown = { ...creationSummary(row, link(row, reused), now), label_creation: object };
      kit.print(shown, () => showText(shown));
    });
}

/** A creation the operator named that does not exist: a refusal (exit code 2), not an unexpected error. */
export class CreationNotFound extends Error {}

function showText(shown: CreationSummary & { label_creation: unknown }): string {
  const lines = [
    `${shown.id}  ${shown.status}${shown.phase ? ` (${shown.phase})` : ''}`,
    `store:        ${shown.store_id}`,
    `order:        ${shown.order ?? ''}`,
    `key:          ${shown.idempotency_key}`,
    `created:      ${shown.created_at} (${shown.age} ago)`,
  ];
  const attention = shown.attention;
  if (attention)
    lines.push(
      `attention:    ${attention.reason}, shipment at carrier ${attention.shipment_at_carrier} (${attention.carrier})`,
      `              sent ${attention.sent_at}, resolve allowed from ${attention.resolve_allowed_at}`,
    );
  if (shown.error_code) lines.splice(1, 0, `error:        ${shown.error_code}`);
  lines.push(`workflow:     ${shown.workflow_id ?? '(none)'}`);
  lines.push(`web ui:       ${shown.web_ui_url ?? '(TEMPORAL_UI_URL is not set)'}`);
  lines.push('', JSON.stringify(shown.label_creation, null, 2));
  return lines.join('\n');
}
