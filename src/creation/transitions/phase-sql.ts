import {
  CREATION_TRANSITIONS,
  phaseAfter,
  statusAfter,
  type CreationEventKind,
  type CreationPosition,
} from '../../domain/creation-phases';
import { LABEL_CREATION_PHASES } from '../../domain/labels';

/**
 * The creation phase table (src/domain/creation-phases.ts) as the record's SQL: where an event is allowed (the guard
 * of its update) and where it leads (its `set`). Every write of a record's status or phase takes both from here, so
 * the record refuses exactly what the workflow's own state refuses. The values are the table's own names, never input.
 */

const quoted = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
const among = (column: string, values: readonly string[]) =>
  values.length === 1 ? `${column} = ${quoted(values)}` : `${column} in (${quoted(values)})`;

/**
 * The record stands where `kind` is allowed; `alias` qualifies the columns (`c.`). A `processing` record without a
 * phase stands where every creation starts (`positionOf`), at `queued`.
 */
export function allowedSql(kind: CreationEventKind, alias = ''): string {
  const from: readonly CreationPosition[] = CREATION_TRANSITIONS[kind].from;
  const phases = LABEL_CREATION_PHASES.filter((phase) => from.includes(phase));
  const statuses = from.filter((p) => !(LABEL_CREATION_PHASES as readonly string[]).includes(p));
  // Every phase of `processing`: the status says it (the guard as the statements always wrote it).
  const everyPhase = phases.length === LABEL_CREATION_PHASES.length;
  const parts = [
    ...(everyPhase ? [among(`${alias}status`, ['processing', ...statuses])] : []),
    ...(!everyPhase && statuses.length ? [among(`${alias}status`, statuses)] : []),
    ...(!everyPhase && phases.length
      ? [`(${alias}status = 'processing' and ${among(`coalesce(${alias}phase, 'queued')`, phases)})`]
      : []),
  ];
  return parts.length === 1 ? parts[0]! : `(${parts.join(' or ')})`;
}

/** The phase `kind` moves a `processing` record to, as an SQL literal. */
export function phaseLiteral(kind: CreationEventKind): string {
  const phase = phaseAfter(kind);
  if (!phase) throw new Error(`${kind} moves no phase`);
  return `'${phase}'`;
}

/** `set` of a move within `processing`. */
export function phaseSql(kind: CreationEventKind): string {
  return `phase = ${phaseLiteral(kind)}`;
}

/** `set` of an event that ends `processing` (or `needs_attention`): the status, no phase, nothing waited for. */
export function endSql(kind: CreationEventKind): string {
  const status = statusAfter(kind);
  if (!status) throw new Error(`${kind} ends no status`);
  return `status = '${status}', phase = null, waiting_for = null`;
}
