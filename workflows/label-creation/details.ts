import type { StoredAttention } from '../../src/domain/creation-record';
import type { WaitFor } from '../../src/domain/existing-labels';
import type { CreationState } from './contract';

/**
 * What a creation's page in the Temporal Web UI says (user metadata, docs/decisions/0901-web-ui-metadata.md): the
 * static summary and details given at start, a summary per activity, and the current details the workflow keeps true
 * at every phase. Pure functions of the workflow's own state, so the text is the same on replay.
 */

export interface DetailsView {
  state: CreationState;
  storeId: string;
  /** The order as decided (`#1001`), or as requested before the decision. */
  order: string;
  /** The carrier account the creation calls, once decided. */
  carrier: { name: string; accountId: string } | null;
  /** The 5-minute deadline to reach the carrier. */
  deadlineMs: number;
  /** While the creation needs attention: the next automatic look at the carrier, and when it is abandoned. */
  nextLookAtMs: number | null;
  abandonAtMs: number | null;
  /** A look at the carrier is under way. */
  looking: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();
const code = (text: string) => `\`${text}\``;

/** The order as a merchant names it: by name when the request gave one, else by the platform's ID. */
export function requestedOrder(order: { by: 'id'; id: string } | { by: 'name'; name: string }): string {
  // The numeric ID a merchant sees in the admin, not the GID the request is normalized to.
  return order.by === 'name' ? order.name : `order ${order.id.replace(/^gid:\/\/shopify\/Order\//, '')}`;
}

/** `GET` of the creation, the call that reads all of it (with a key of the store). */
function readCall(creationId: string): string {
  return code(`curl -s "$BASE/v1/label-creations/${creationId}" -H "Authorization: Bearer $KEY"`);
}

function resolveCall(creationId: string, outcome: string): string {
  return code(
    `curl -s -X POST "$BASE/v1/label-creations/${creationId}/resolve" -H "Authorization: Bearer $KEY" ` +
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
  const lines = [
    `**Needs attention**: ${code(a.reason)}; shipment_at_carrier ${code(a.shipmentAtCarrier)}.`,
    `- Carrier: ${a.carrier.name}${a.carrier.accountId ? ` (${code(a.carrier.accountId)})` : ''}` +
      (a.carrierReference ? `, look for reference ${code(a.carrierReference)} in its portal` : '') +
      (a.carrierNote ? ` (${a.carrierNote})` : ''),
    `- Sent at: ${a.sentAt}`,
    `- resolve_allowed_at: ${a.resolveAllowedAt}`,
  ];
  if (view.state.resolution) {
    const r = view.state.resolution;
    lines.push(`- Resolved ${code(r.outcome)} by ${code(r.resolvedBy)} at ${r.resolvedAt}: being applied.`);
    return lines;
  }
  if (view.looking) lines.push('- Looking at the carrier for the shipment now.');
  if (view.nextLookAtMs !== null) lines.push(`- Next automatic look at the carrier: ${iso(view.nextLookAtMs)}`);
  if (view.abandonAtMs !== null) lines.push(`- Abandoned if unresolved at: ${iso(view.abandonAtMs)}`);
  lines.push('', 'Resolve it (key with `label_creations:resolve`), after checking the carrier portal:');
  if (a.shipmentAtCarrier === 'unknown') {
    lines.push(`- no shipment there, from resolve_allowed_at: ${resolveCall(id, 'not_created')}`);
  }
  lines.push(`- the shipment exists: ${resolveCall(id, 'shipment_exists')}`);
  return lines;
}

function processingLine(view: DetailsView): string {
  const { state } = view;
  const carrier = view.carrier ? `${view.carrier.name} (${code(view.carrier.accountId)})` : 'the carrier';
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

/** The current details (markdown) for the creation as it is now. */
export function currentDetails(view: DetailsView): string {
  const { state } = view;
  const head = `Creation ${code(state.creationId)} of store ${code(view.storeId)}, ${view.order}`;
  let body: string[];
  if (state.status === 'processing') body = [`**Processing**: ${processingLine(view)}`];
  else if (state.status === 'needs_attention' && state.attention) body = attentionLines(view, state.attention);
  else if (state.status === 'succeeded') body = [`**Succeeded**: label(s) ${state.labelIds.map(code).join(', ')}.`];
  else if (state.status === 'failed' && state.error)
    body = [`**Failed**: ${code(state.error.code)}: ${state.error.message}`];
  else body = [`**${state.status}**`];
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
    staticDetails: [
      `Creation ${code(input.creationId)} (\`POST /v1/labels\`, Idempotency-Key ${code(input.idempotencyKey)}).`,
      `Store ${code(input.storeId)}; ${input.order}; ${account}.`,
      `Read it: ${readCall(input.creationId)}; its state: query \`state\`.`,
    ].join('\n'),
  };
}

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
