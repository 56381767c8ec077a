import type { StoredAttention } from '../../src/domain/creation-record';
import type { WaitFor } from '../../src/domain/existing-labels';
import type { CreationState } from './contract';

/**
 * What a creation's page in the Temporal Web UI says (user metadata, docs/decisions/0901-web-ui-metadata.md and 0903):
 * the static summary and details given at start, a summary per activity and per timer, and the current details the
 * workflow keeps true at every phase. Pure functions of the workflow's own state, so the text is the same on replay.
 *
 * Markdown as the Web UI renders it: a list needs a blank line before it, or its items run into the paragraph above.
 */

export interface DetailsView {
  state: CreationState;
  storeId: string;
  /** The order as decided (`#1001`), or as requested before the decision. */
  order: string;
  /** The carrier account and service the creation calls, once decided, and what chose them. */
  carrier: ChosenCarrier | null;
  /** The 5-minute deadline to reach the carrier. */
  deadlineMs: number;
  /** While the creation needs attention: the next automatic look at the carrier, and when it is abandoned. */
  nextLookAtMs: number | null;
  abandonAtMs: number | null;
  /** A look at the carrier is under way. */
  looking: boolean;
}

/** The carrier account and service of a decision to create, as the Web UI names them. */
export interface ChosenCarrier {
  name: string;
  accountId: string;
  serviceCode: string;
  /** The priority of the store's rule that chose them; null when the request named the account. */
  rulePriority: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const code = (text: string) => `\`${text}\``;

/** A markdown list, set off from the paragraph before it by a blank line (the Web UI's renderer needs one). */
const list = (items: string[]): string[] => (items.length ? ['', ...items.map((item) => `- ${item}`)] : []);

/** `Carrier A (`ca_...`), service `a_home`, chosen by the store's rule of priority 2`. */
export function carrierLine(carrier: ChosenCarrier): string {
  const chosenBy =
    carrier.rulePriority === null
      ? 'as the request named'
      : `chosen by the store's rule of priority ${carrier.rulePriority}`;
  return `Carrier: ${carrier.name} (${code(carrier.accountId)}), service ${code(carrier.serviceCode)}, ${chosenBy}`;
}

/** The order as a merchant names it: by name when the request gave one, else by the platform's ID. */
export function requestedOrder(order: { by: 'id'; id: string } | { by: 'name'; name: string }): string {
  // The numeric ID a merchant sees in the admin, not the GID the request is normalized to.
  return order.by === 'name' ? order.name : `order ${order.id.replace(/^gid:\/\/shopify\/Order\//, '')}`;
}

/**
 * `GET` of the creation, the call that reads all of it (with a key of the store). Short enough for one line of the Web
 * UI's panel, whose last wrapped line it cuts off.
 */
function readCall(creationId: string): string {
  return `${code(`GET $BASE/label-creations/${creationId}`)} (a key of the store)`;
}

function resolveCall(creationId: string, outcome: string): string {
  return code(
    `curl -s -X POST "$BASE/label-creations/${creationId}/resolve" -H "Authorization: Bearer $KEY" ` +
      `-H 'content-type: application/json' -d '{"outcome":"${outcome}"}'`,
  );
}

function waitingLine(waitFor: WaitFor, deadlineMs: number): string {
  const until = `decides again when it is released, by ${iso(deadlineMs)} at the latest (then \`not_started\`)`;
  if (waitFor.reason === 'label_pending') {
    return `Waiting for label ${code(waitFor.labelId)}, pending at the carrier, to cover these fulfillment orders; ${until}.`;
  }
  const held = waitFor.fulfillmentOrderIds.map(code).join(', ');
  const by =
    waitFor.heldBy === 'creation' && waitFor.labelCreationId
      ? `creation ${code(waitFor.labelCreationId)} (its workflow holds the lock)`
      : waitFor.heldBy === 'creation'
        ? 'another creation'
        : `the platform (${waitFor.heldBy})`;
  return `Waiting for the lock on fulfillment order(s) ${held}, held by ${by}; ${until}.`;
}

function attentionLines(view: DetailsView, a: StoredAttention): string[] {
  const id = view.state.creationId;
  const service = view.carrier ? `, service ${code(view.carrier.serviceCode)}` : '';
  const facts = [
    `Carrier: ${a.carrier.name}${a.carrier.accountId ? ` (${code(a.carrier.accountId)})` : ''}${service}` +
      (a.carrierReference ? `, look for reference ${code(a.carrierReference)} in its portal` : '') +
      (a.carrierNote ? ` (${a.carrierNote})` : ''),
    `Sent at: ${a.sentAt}`,
    `resolve_allowed_at: ${a.resolveAllowedAt}`,
  ];
  const head = `**Needs attention**: ${code(a.reason)}; shipment_at_carrier ${code(a.shipmentAtCarrier)}.`;
  if (view.state.resolution) {
    const r = view.state.resolution;
    facts.push(`Resolved ${code(r.outcome)} by ${code(r.resolvedBy)} at ${r.resolvedAt}: being applied.`);
    return [head, ...list(facts)];
  }
  if (view.looking) facts.push('Looking at the carrier for the shipment now.');
  if (view.nextLookAtMs !== null) facts.push(`Next automatic look at the carrier: ${iso(view.nextLookAtMs)}`);
  if (view.abandonAtMs !== null) facts.push(`Abandoned if unresolved at: ${iso(view.abandonAtMs)}`);
  const resolves = [
    ...(a.shipmentAtCarrier === 'unknown'
      ? [`no shipment there, from resolve_allowed_at: ${resolveCall(id, 'not_created')}`]
      : []),
    `the shipment exists: ${resolveCall(id, 'shipment_exists')}`,
  ];
  return [
    head,
    ...list(facts),
    '',
    'Resolve it (key with `label_creations:resolve`), after checking the carrier portal:',
    ...list(resolves),
  ];
}

function processingLine(view: DetailsView): string {
  const { state } = view;
  const carrier = view.carrier ? view.carrier.name : 'the carrier';
  switch (state.phase) {
    case 'waiting_for_lock':
      return state.waitingFor ? waitingLine(state.waitingFor, view.deadlineMs) : 'Waiting for a lock.';
    case 'sending_to_carrier':
      return `Sending the shipment to ${carrier}.`;
    case 'waiting_for_carrier':
      return `Sent to ${carrier}; waiting for its batch to complete or its label PDF.`;
    default:
      return `Preparing: reading the order, deciding and locking its fulfillment orders (deadline to reach the carrier ${iso(view.deadlineMs)}).`;
  }
}

/**
 * The current details (markdown) for the creation as it is now: what it is, where it stands, and from the decision on
 * the carrier account and service it calls (in the Web UI's "User Metadata" tab, "Current Details").
 */
export function currentDetails(view: DetailsView): string {
  const { state } = view;
  const head = `Creation ${code(state.creationId)} of store ${code(view.storeId)}, ${view.order}`;
  const chosen = view.carrier ? list([carrierLine(view.carrier)]) : [];
  let body: string[];
  if (state.status === 'processing') body = [`**Processing**: ${processingLine(view)}`, ...chosen];
  else if (state.status === 'needs_attention' && state.attention) body = attentionLines(view, state.attention);
  else if (state.status === 'succeeded')
    body = [`**Succeeded**: label(s) ${state.labelIds.map(code).join(', ')}.`, ...chosen];
  else if (state.status === 'failed' && state.error)
    body = [`**Failed**: ${code(state.error.code)}: ${state.error.message}`, ...chosen];
  else body = [`**${state.status}**`, ...chosen];
  return [head, '', ...body, '', `Read it: ${readCall(state.creationId)}`].join('\n');
}

/** The static summary (one line) and details the API starts the workflow with. */
export function startMetadata(input: {
  creationId: string;
  storeId: string;
  idempotencyKey: string;
  order: string;
  carrierAccountId: string | null;
}): { staticSummary: string; staticDetails: string } {
  const account = input.carrierAccountId ? `carrier account ${input.carrierAccountId}` : "the store's carrier rules";
  return {
    staticSummary: `Label for ${input.order} of store ${input.storeId} via ${account}`,
    // Two short items: the Web UI shows the static details in a panel of fixed height, below the summary, which
    // already names the order, the store and the carrier account or rules.
    staticDetails: list([
      `Creation ${code(input.creationId)} of \`POST /v1/labels\`, Idempotency-Key ${code(input.idempotencyKey)}`,
      input.carrierAccountId
        ? `Carrier account ${code(input.carrierAccountId)}, as the request named`
        : "Carrier and service: chosen by the store's rules, named in Current Details once decided",
    ])
      .slice(1)
      .join('\n'),
  };
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * One-line summaries of the creation's timers (`sleep`, and `condition` with a timeout), as the Web UI names them in
 * the event history instead of a number and a duration. User metadata, not a command: a replay matches the timers as
 * before.
 */
export const timerSummary = {
  outcomeWait: (waitMs: number) =>
    `hold the request's answer until the creation leaves processing, ${seconds(waitMs)} at most (Prefer: wait)`,
  holdRelease: (waitMs: number) =>
    `hold the resolve's answer until the platform hold is released, ${seconds(waitMs)} at most`,
  lockHolder: (order: string) => `wait for the creation holding the fulfillment orders of ${order} to release them`,
  platformHold: (order: string) =>
    `wait while the platform holds the fulfillment orders of ${order}, then decide again`,
  pendingLabel: (labelId: string) => `wait, then look at pending label ${labelId} again`,
  batch: (carrier: string, shipmentId: string) => `wait, then check batch ${shipmentId} at ${carrier} again`,
  nextLook: (carrier: string, order: string) =>
    `next look at ${carrier} for the shipment of ${order}, unless resolved first`,
  retention: (creationId: string) => `delete the record of abandoned creation ${creationId} (90 days after creation)`,
};

/** One-line summaries of the creation's activities, as the Web UI lists them. */
export const activitySummary = {
  prepare: (order: string) => `read ${order}, decide and lock its fulfillment orders`,
  prepareAndSend: (order: string) => `read ${order}, decide, lock, and create its shipment at the carrier`,
  send: (carrier: string, order: string) => `create shipment at ${carrier} for ${order}`,
  checkBatch: (carrier: string, shipmentId: string, order: string) =>
    `check batch ${shipmentId} at ${carrier} for ${order}`,
  fetchLabel: (carrier: string, order: string) => `download the label PDF from ${carrier} for ${order}`,
  look: (carrier: string, order: string, reference: string | null) =>
    `look for the shipment at ${carrier} for ${order}${reference ? ` (reference ${reference})` : ''}`,
  fulfil: (mode: string, order: string) => `fulfil ${order} on the platform (${mode})`,
  tag: (order: string) => `tag ${order} with the label tag on the platform`,
  platformHold: (action: 'hold' | 'release', order: string) =>
    `${action === 'hold' ? 'hold' : 'release the hold on'} the fulfillment orders of ${order} on the platform`,
};
