import type { StoredAttention } from './creation-record';
import type { WaitFor } from './existing-labels';
import { LABEL_CREATION_PHASES, type LabelCreationPhase, type LabelCreationStatus } from './labels';
import type { CreationError } from './refusal';
import type { Resolution } from './resolve';

/**
 * The one table of a label creation's phases and the events that move it (spec "Label creation `status`" and its
 * phases). The creation's workflow applies these events to its own state (`applyCreationEvent`), and the record's
 * writes take their guards and targets from the same table (`src/creation/transitions/`), so the two never disagree
 * on what may follow what. An event refused where the creation stands changes nothing, as an SQL update whose guard
 * matches no row.
 */

/** A status past `processing`. */
export type EndStatus = Exclude<LabelCreationStatus, 'processing'>;

/** Where a creation stands: a phase of `processing`, or a status past it. */
export type CreationPosition = LabelCreationPhase | EndStatus;

export const END_STATUSES: readonly EndStatus[] = ['succeeded', 'failed', 'needs_attention', 'abandoned'];
export const CREATION_POSITIONS: readonly CreationPosition[] = [...LABEL_CREATION_PHASES, ...END_STATUSES];

const PROCESSING: readonly LabelCreationPhase[] = LABEL_CREATION_PHASES;
/** Nothing went to the carrier yet. */
const BEFORE_CARRIER = ['queued', 'preparing', 'waiting_for_lock'] as const;
/** The carrier was (or is being) called. */
const CARRIER_CALLED = ['sending_to_carrier', 'waiting_for_carrier', 'finalizing'] as const;

interface Transition {
  readonly from: readonly CreationPosition[];
  /** `same`: the event records something and stays; `recorded`: the status the event carries (a stopped run's). */
  readonly to: CreationPosition | 'same' | 'recorded';
}

export const CREATION_TRANSITIONS = {
  /** The prepare step begins, or begins again: also after a first step that took its locks but never sent. */
  prepare: { from: [...BEFORE_CARRIER, 'sending_to_carrier'], to: 'preparing' },
  /** A fulfillment order is held (by a creation, a pending label or an export): wait for it. */
  wait_for_lock: { from: BEFORE_CARRIER, to: 'waiting_for_lock' },
  /** Every lock taken: the carrier call (its mark, `sent_at`, is the same move again). */
  send: { from: [...BEFORE_CARRIER, 'sending_to_carrier'], to: 'sending_to_carrier' },
  /** The carrier accepted, and a batch or a PDF is still to come. */
  await_carrier: { from: ['sending_to_carrier'], to: 'waiting_for_carrier' },
  /** The carrier's label is known (recorded pending, or found by a look while the creation needs attention). */
  label_recorded: { from: [...CARRIER_CALLED, 'needs_attention'], to: 'same' },
  /** The label is final: its side effects follow. From `needs_attention` the creation succeeds without this phase. */
  finalize: { from: CARRIER_CALLED, to: 'finalizing' },
  /** A creation ends wherever it stands in `processing`: a refusal, its deadline, labels returned, a lost worker. */
  succeed: { from: [...PROCESSING, 'needs_attention'], to: 'succeeded' },
  fail: { from: [...PROCESSING, 'needs_attention'], to: 'failed' },
  /** The outcome is unclear; entered again by a retry of its write. */
  need_attention: { from: [...PROCESSING, 'needs_attention'], to: 'needs_attention' },
  /** A look at the carrier learned something (the shipment exists, its reference). */
  learn: { from: ['needs_attention'], to: 'same' },
  /** The merchant's resolve is taken (`decideResolve`); the creation moves by one of the two events below. */
  resolve: { from: ['needs_attention'], to: 'same' },
  resolve_not_created: { from: ['needs_attention'], to: 'failed' },
  abandon: { from: ['needs_attention'], to: 'abandoned' },
  /** A duplicate run of an attempt whose record already moved on takes the record's status and stops. */
  stop: { from: PROCESSING, to: 'recorded' },
} as const satisfies Record<string, Transition>;

export type CreationEventKind = keyof typeof CREATION_TRANSITIONS;
export const CREATION_EVENT_KINDS = Object.keys(CREATION_TRANSITIONS) as CreationEventKind[];

/** The events, with what each one records. */
export type CreationEvent =
  | { kind: 'prepare' }
  | { kind: 'send' }
  | { kind: 'await_carrier' }
  | { kind: 'finalize' }
  | { kind: 'abandon' }
  | { kind: 'wait_for_lock'; waitingFor: WaitFor }
  | { kind: 'label_recorded'; labelIds: string[] }
  | { kind: 'succeed'; labelIds: string[] }
  | { kind: 'fail'; error: CreationError }
  | { kind: 'resolve_not_created'; error: CreationError }
  | { kind: 'need_attention'; attention: StoredAttention }
  | { kind: 'learn'; attention: StoredAttention; labelIds?: string[] }
  | { kind: 'resolve'; resolution: Resolution }
  | { kind: 'stop'; status: EndStatus };

/** What a creation's phase table moves: its status and phase, and what the events record beside them. */
export interface CreationProgress {
  status: LabelCreationStatus;
  phase: LabelCreationPhase | null;
  waitingFor: WaitFor | null;
  labelIds: string[];
  error: CreationError | null;
  attention: StoredAttention | null;
  resolution: Resolution | null;
}

const isPhase = (p: CreationPosition): p is LabelCreationPhase => (PROCESSING as readonly string[]).includes(p);

export function positionOf(s: { status: LabelCreationStatus; phase: LabelCreationPhase | null }): CreationPosition {
  // A `processing` creation always has a phase; `queued` is where it starts.
  return s.status === 'processing' ? (s.phase ?? 'queued') : s.status;
}

export function placeOf(p: CreationPosition): { status: LabelCreationStatus; phase: LabelCreationPhase | null } {
  return isPhase(p) ? { status: 'processing', phase: p } : { status: p, phase: null };
}

/** Where the event moves a creation standing at `from`; null when the table refuses it there. */
export function nextPosition(from: CreationPosition, event: CreationEvent): CreationPosition | null {
  const t: Transition = CREATION_TRANSITIONS[event.kind];
  if (!t.from.includes(from)) return null;
  if (t.to === 'same') return from;
  if (t.to === 'recorded') return (event as Extract<CreationEvent, { kind: 'stop' }>).status;
  return t.to;
}

/** The phase an event moves a `processing` creation to, for the events that move within it; null for the others. */
export function phaseAfter(kind: CreationEventKind): LabelCreationPhase | null {
  const to: Transition['to'] = CREATION_TRANSITIONS[kind].to;
  return to !== 'same' && to !== 'recorded' && isPhase(to) ? to : null;
}

/** The status an event ends a creation with; null for the events that keep it (or take the record's). */
export function statusAfter(kind: CreationEventKind): EndStatus | null {
  const to: Transition['to'] = CREATION_TRANSITIONS[kind].to;
  return to !== 'same' && to !== 'recorded' && !isPhase(to) ? to : null;
}

/** The event that moves a `processing` creation to `phase` (each phase has one); null for `queued`, where it starts. */
export function eventInto(phase: LabelCreationPhase): CreationEventKind | null {
  return CREATION_EVENT_KINDS.find((kind) => phaseAfter(kind) === phase) ?? null;
}

/** What the event records beside the move. */
function recorded(event: CreationEvent): Partial<CreationProgress> {
  switch (event.kind) {
    case 'wait_for_lock':
      return { waitingFor: event.waitingFor };
    case 'label_recorded':
    case 'succeed':
      return { labelIds: event.labelIds };
    case 'fail':
    case 'resolve_not_created':
      return { error: event.error };
    case 'need_attention':
      return { attention: event.attention };
    case 'learn':
      return { attention: event.attention, ...(event.labelIds ? { labelIds: event.labelIds } : {}) };
    case 'resolve':
      return { resolution: event.resolution };
    default:
      return {};
  }
}

/**
 * The creation after the event, or null when the table refuses it where the creation stands. A move clears what it
 * waited for (only `wait_for_lock` names it); an event that stays keeps it.
 */
export function applyCreationEvent<S extends CreationProgress>(state: S, event: CreationEvent): S | null {
  const from = positionOf(state);
  const to = nextPosition(from, event);
  if (to === null) return null;
  const moved = CREATION_TRANSITIONS[event.kind].to !== 'same';
  return { ...state, ...placeOf(to), ...(moved ? { waitingFor: null } : {}), ...recorded(event) };
}
