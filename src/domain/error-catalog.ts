/**
 * Every error code of the spec's "Errors" table with its HTTP status, a default message and, for codes that can
 * end a creation, the default `retry` / `next_action` pair. The value in a response wins over these defaults.
 */
export type Retry = 'no' | 'after_fix' | 'later' | 'manual';
export type NextAction =
  'fetch_document' | 'wait_for_document' | 'poll' | 'manual_check' | 'fix_and_retry' | 'retry_later' | 'none';

export const RETRY_NEXT_ACTION: Record<Retry, NextAction> = {
  no: 'none',
  after_fix: 'fix_and_retry',
  later: 'retry_later',
  manual: 'manual_check',
};

type Entry = { status: number; message: string; retry?: Retry };

export const ERROR_CATALOG = {
  unauthorized: { status: 401, message: 'No bearer credential was sent. Send Authorization: Bearer <API_KEY>.' },
  invalid_token: { status: 401, message: 'The API key is not valid.' },
  access_required: { status: 403, message: 'The API is not enabled for this store.' },
  api_paused: { status: 403, message: 'API access for this store is paused by support.' },
  plan_required: { status: 403, message: 'The store needs an active subscription or free access.' },
  write_access_required: { status: 403, message: 'Write access is not enabled for this store.', retry: 'no' },
  insufficient_scope: { status: 403, message: 'The API key lacks the scope this endpoint needs.', retry: 'no' },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'This path does not accept the method.' },
  idempotency_conflict: { status: 409, message: 'The idempotency key is bound to a different request.', retry: 'no' },
  duplicate_request: { status: 409, message: 'An identical request ran moments ago.' },
  label_pending: { status: 409, message: 'The label is not finished yet.' },
  document_pending: { status: 409, message: 'The label PDF is not stored yet.' },
  render_in_progress: { status: 409, message: 'The label is already being rendered.' },
  ambiguous_current_set: { status: 409, message: 'Two current outbound labels cover one fulfillment order.' },
  label_exists: { status: 409, message: 'Existing labels or an earlier creation block the target.', retry: 'no' },
  unresolved_creation: {
    status: 409,
    message: 'An earlier creation for the fulfillment order needs attention.',
    retry: 'manual',
  },
  creation_in_progress: {
    status: 409,
    message: 'Another creation or export holds the fulfillment order.',
    retry: 'later',
  },
  precondition_failed: { status: 409, message: '`replaces` differs from what blocks the target.', retry: 'after_fix' },
  already_resolved: { status: 409, message: 'The creation was resolved with a different outcome.', retry: 'no' },
  not_resolvable: { status: 409, message: 'The creation cannot be resolved that way.', retry: 'no' },
  resolve_too_early: {
    status: 409,
    message: '`not_created` is accepted only from `resolve_allowed_at`.',
    retry: 'later',
  },
  document_expired: { status: 410, message: 'The label is older than 60 days; its document is no longer served.' },
  label_not_reissuable: { status: 410, message: 'The label has no stored copy and cannot be rendered again.' },
  validation_error: { status: 422, message: 'The request is not valid.', retry: 'after_fix' },
  unsupported_version: { status: 422, message: 'Unknown Service-Version.' },
  format_not_supported: { status: 422, message: 'The format cannot be produced for this label.' },
  document_unavailable: { status: 422, message: 'The label has no servable document.' },
  carrier_rejected: { status: 422, message: 'The carrier refused the shipment.', retry: 'after_fix' },
  repeated_rejection: { status: 422, message: 'The same shipment was refused repeatedly.', retry: 'after_fix' },
  label_validation_failed: { status: 422, message: 'Checks before the carrier call failed.', retry: 'after_fix' },
  currency_mismatch: { status: 422, message: 'The currency differs from the carrier currency.', retry: 'after_fix' },
  order_not_eligible: { status: 422, message: 'The order cannot get a label as requested.', retry: 'after_fix' },
  order_ambiguous: {
    status: 422,
    message: '`order_name` matches several orders; send `order_id`.',
    retry: 'after_fix',
  },
  pickup_point_not_available: {
    status: 422,
    message: 'The pickup point cannot be set on the order.',
    retry: 'after_fix',
  },
  fulfillment_order_required: {
    status: 422,
    message: 'Fulfillment orders at several locations; name one or send all_locations: true.',
    retry: 'after_fix',
  },
  carrier_selection_failed: {
    status: 422,
    message: 'No carrier account and service could be chosen.',
    retry: 'after_fix',
  },
  unsupported_parameter: { status: 422, message: 'The parameter is not supported here.', retry: 'after_fix' },
  rate_limited: { status: 429, message: 'A rate limit is exhausted.', retry: 'later' },
  internal_error: { status: 500, message: 'Something went wrong on our side.' },
  carrier_unavailable: { status: 503, message: 'The carrier is unavailable.', retry: 'later' },
  shopify_unavailable: { status: 503, message: 'The store platform is unavailable.', retry: 'later' },
  temporarily_unavailable: { status: 503, message: 'Temporarily unavailable.', retry: 'later' },
  not_started: { status: 503, message: 'The creation did not reach the carrier within 5 minutes.', retry: 'later' },
} as const satisfies Record<string, Entry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

/**
 * An `error.code` a creation can end with: every HTTP code, and `resolved_not_created`, which is never an HTTP response
 * (spec "Errors": the code of a creation resolved with `not_created`, retry `later`).
 */
export type CreationErrorCode = ErrorCode | 'resolved_not_created';
type ErrorDetails = Record<string, unknown>;
const RESOLVED_NOT_CREATED_RETRY: Retry = 'later';

/**
 * The error's `details` with its `retry` / `next_action` pair (spec "Errors"): the pair the details already carry
 * wins, else the Errors table's default for the code; codes without a default get none. The one rule for the direct
 * answer and for every stored failed creation (its object, the list, the resolve answer, the webhook payload).
 */
export function withRetryPair(code: CreationErrorCode, details: ErrorDetails = {}): ErrorDetails {
  if (details.retry !== undefined) return details;
  const entry: Entry | undefined = code === 'resolved_not_created' ? undefined : ERROR_CATALOG[code];
  const retry = code === 'resolved_not_created' ? RESOLVED_NOT_CREATED_RETRY : entry?.retry;
  return retry ? { ...details, retry, next_action: RETRY_NEXT_ACTION[retry] } : details;
}
