import { MAX_JSON_DEPTH } from './body';
import type { ErrorCode } from '../domain/error-catalog';

/**
 * One example answer per error code for the OpenAPI document: the `details` fields the spec's "Errors" table names
 * for the code, and whether its answers carry `Retry-After`. Typed over every code, so a new code needs an example.
 */
export interface ErrorExample {
  summary: string;
  details?: Record<string, unknown>;
  /** The answer carries `Retry-After` (always or in the case the summary names). */
  retryAfter?: true;
}

const LABEL = 'lbl_8f2kq0v9x1m3n7b5c4d6z2w8';
const CREATION = 'lcr_3h7j9k1m5n2p8q4r6s0t2v4x';
const ACCOUNT = 'ca_5t8w2y4z6b1d3f7h9k0m2p4r';
const ORDER = 'gid://shopify/Order/5512398471230';
const FULFILLMENT_ORDER = { id: 'gid://shopify/FulfillmentOrder/6623409582341', legacy_id: '6623409582341' };

export const ERROR_EXAMPLES: Record<ErrorCode, ErrorExample> = {
  unauthorized: { summary: 'No bearer credential' },
  invalid_token: { summary: 'Unknown, malformed, revoked or expired key' },
  access_required: {
    summary: 'The API is not enabled for the store',
    details: {
      how_to_enable: 'In the app, open Settings > API and turn on API access.',
      support_email: 'support@example.com',
    },
  },
  api_paused: {
    summary: 'Support paused the store',
    details: { how_to_enable: 'Contact support to lift the pause.', support_email: 'support@example.com' },
  },
  plan_required: { summary: 'No subscription or free access' },
  write_access_required: { summary: 'Write access is off for the store' },
  insufficient_scope: { summary: 'The key lacks the scope', details: { required_scope: 'labels:print' } },
  not_found: { summary: 'Unknown endpoint or ID, or an ID of another store' },
  method_not_allowed: { summary: 'The path does not accept the method', details: { allowed_methods: ['GET'] } },
  idempotency_conflict: {
    summary: 'The key is bound to a different request (or the first one is still running: `Retry-After`)',
    details: { idempotency_key: 'order-1001-print-1' },
    retryAfter: true,
  },
  duplicate_request: {
    summary: 'An `auto` key and an identical request under 60 seconds ago',
    details: { ran_seconds_ago: 12, retry_after_seconds: 48 },
  },
  label_pending: {
    summary: 'The label is unfinished',
    details: { label_id: LABEL, label_creation_id: CREATION },
    retryAfter: true,
  },
  document_pending: {
    summary: 'The label is ready, its PDF not stored yet',
    details: { label_id: LABEL, label_creation_id: CREATION },
    retryAfter: true,
  },
  render_in_progress: {
    summary: 'The same label is rendering, or the store has 3 renders running',
    details: { label_id: LABEL, concurrency_limit: 3 },
    retryAfter: true,
  },
  ambiguous_current_set: {
    summary: 'Two current outbound labels cover one fulfillment order',
    details: {
      order_id: ORDER,
      current_label_ids: [LABEL, 'lbl_1a2b3c4d5e6f7g8h9j0k1m2n'],
      conflicting_fulfillment_orders: [FULFILLMENT_ORDER],
    },
  },
  label_exists: {
    summary: 'Existing labels block the target',
    details: { reason: 'existing_label_ready', existing_label_ids: [LABEL] },
  },
  unresolved_creation: {
    summary: 'An earlier creation needs attention',
    details: { label_creation_id: CREATION, label_creation_ids: [CREATION] },
  },
  creation_in_progress: {
    summary: 'Another creation or an export holds the fulfillment order',
    details: { held_by: 'creation', label_creation_id: CREATION },
    retryAfter: true,
  },
  precondition_failed: { summary: '`replaces` differs from what blocks', details: { current_blocking: [LABEL] } },
  already_resolved: {
    summary: 'Resolved with a different outcome',
    details: { label_creation_id: CREATION, outcome: 'shipment_exists' },
  },
  not_resolvable: {
    summary: 'The creation is not in `needs_attention`',
    details: { label_creation_id: CREATION, status: 'succeeded' },
  },
  resolve_too_early: {
    summary: '`not_created` before `resolve_allowed_at`',
    details: { label_creation_id: CREATION, resolve_allowed_at: '2026-10-20T10:15:00Z' },
    retryAfter: true,
  },
  document_expired: { summary: 'The label is older than 60 days', details: { label_id: LABEL } },
  label_not_reissuable: { summary: 'No stored copy and no side-effect-free render', details: { label_id: LABEL } },
  validation_error: {
    summary: 'A bad parameter, header or body',
    details: { parameter: 'limit', received: '500', max: 250 },
  },
  unsupported_version: {
    summary: 'Unknown Service-Version',
    details: { requested_version: '2025-01-01', allowed_versions: ['2026-10-01'] },
  },
  format_not_supported: {
    summary: 'The format cannot be produced for this label',
    details: { label_id: LABEL, requested_format: 'a4', supported: ['label'] },
  },
  document_unavailable: {
    summary: 'The label has no servable document',
    details: { label_id: LABEL, reason: 'carrier_excluded' },
  },
  carrier_rejected: {
    summary: 'The carrier refused the shipment',
    details: { reason: 'postcode_invalid', label_creation_id: CREATION },
  },
  repeated_rejection: {
    summary: 'The same shipment was refused 3 times in 60 minutes',
    details: {
      scope: 'fingerprint',
      blocked_until: '2026-10-20T11:00:00Z',
      carrier_rejected: { reason: 'postcode_invalid', label_creation_id: CREATION },
      label_creation_id: CREATION,
    },
  },
  label_validation_failed: {
    summary: 'Checks before the carrier call failed',
    details: { issues: [{ code: 'missing_phone', field: 'shipping_address.phone' }] },
  },
  currency_mismatch: {
    summary: 'The COD currency differs from the carrier currency',
    details: { field: 'cod.currency', expected_currency: 'CZK' },
  },
  order_not_eligible: {
    summary: 'The order cannot get a label as requested',
    details: { reason: 'order_cancelled', order_id: ORDER },
  },
  order_ambiguous: { summary: '`order_name` matches several orders', details: { order_name: '#1001' } },
  pickup_point_not_available: {
    summary: 'The pickup point cannot be set on the order',
    details: { reason: 'not_found_nearby', carriers: ['carrier_c'] },
  },
  fulfillment_order_required: {
    summary: 'Fulfillment orders at several locations and none named',
    details: {
      fulfillment_orders: [
        {
          id: FULFILLMENT_ORDER.id,
          status: 'open',
          assigned_location_name: 'Prague warehouse',
          existing_label_ids: [],
        },
      ],
    },
  },
  carrier_selection_failed: {
    summary: 'No carrier account and service could be chosen',
    details: { reason: 'no_matching_rule', candidates: [{ carrier_account_id: ACCOUNT, carrier: 'carrier_a' }] },
  },
  unsupported_parameter: {
    summary: 'An option the carrier account does not declare',
    details: { parameter: 'carrier_options.saturday_delivery', carrier_account_id: ACCOUNT },
  },
  rate_limited: {
    summary: 'A rate limit is exhausted',
    details: {
      bucket: 'read_key_per_second',
      scope: 'key',
      limit: 10,
      window_seconds: 1,
      retry_after_seconds: 1,
    },
    retryAfter: true,
  },
  internal_error: { summary: 'A failure on the service side (never with details)' },
  carrier_unavailable: {
    summary: 'The carrier did not answer in time',
    details: { reason: 'timeout', label_id: LABEL, retry_after_seconds: 5 },
    retryAfter: true,
  },
  shopify_unavailable: {
    summary: 'The store platform throttled the call',
    details: { what: 'order_tags', throttled: true },
    retryAfter: true,
  },
  temporarily_unavailable: { summary: 'Write counters unavailable', retryAfter: true },
  not_started: { summary: 'The creation did not reach the carrier within 5 minutes' },
};

/**
 * `validation_error` of a money amount (`POST /labels` `cod`, `declared_value`): the bound and what was received are
 * decimal strings with two decimals, as every amount on the wire.
 */
export const AMOUNT_VALIDATION_EXAMPLE: ErrorExample = {
  summary: 'A bad parameter, header or body (here an amount above the maximum; amounts are decimal strings)',
  details: { parameter: 'cod.amount', received: '10000000.00', max: '9999999.99' },
};

/** `POST /labels`' `temporarily_unavailable`: the platform-wide creation queue full (docs/decisions/0407). */
export const PLATFORM_QUEUE_FULL_EXAMPLE: ErrorExample = {
  summary:
    'The platform-wide creation queue is full (Retry-After: 30), or the write counters are unavailable (Retry-After: 5); nothing was created, no key bound',
  retryAfter: true,
};

/** The 400 every path answers to a key in the query string (spec "Authentication" 2). */
export const KEY_IN_QUERY_EXAMPLE: ErrorExample = {
  summary: 'An API key in the query string',
  details: { parameter: 'api_key', allowed: ['Authorization: Bearer <API_KEY>'] },
};

/**
 * More `validation_error` examples for a route's 422, keyed `validation_error.<name>` beside the code's own: the body
 * limits (spec "Limits": 256 KB; depth: docs/decisions/0028-request-input-bounds.md) on routes that take a body.
 */
export const BODY_LIMIT_EXAMPLES: Record<string, ErrorExample> = {
  'validation_error.max_bytes': {
    summary: 'The body exceeds 256 KB (declared or chunked)',
    details: { parameter: 'body', max_bytes: 262_144 },
  },
  'validation_error.max_depth': {
    summary: `The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
    details: { parameter: 'body', max_depth: MAX_JSON_DEPTH },
  },
};
