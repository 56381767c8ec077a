import type { CreationErrorCode, ErrorCode } from './error-catalog';

/**
 * A business refusal as data: the spec's error code, a message for people, the code's `details`, and `Retry-After`
 * where the spec names one. The one shape a refusal has everywhere: decisions return it (workflow code branches on
 * it), services throw it as a `DomainError` (`DomainError.from`), activities and workflow updates fail with it
 * (`toFailure` / `fromFailure` in the workflow's contract), a failed creation stores it, and the API renders it.
 */
export interface Refusal<Code extends CreationErrorCode = ErrorCode> {
  code: Code;
  message: string;
  details: Record<string, unknown>;
  retryAfterSeconds?: number;
}

/**
 * How a failed creation ended (its `error`): a refusal, or `resolved_not_created`, which is never an HTTP answer.
 * Records stored before `details` was always written may lack it; readers default it to `{}`.
 */
export type CreationError = Refusal<CreationErrorCode>;

export function refusal(
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  retryAfterSeconds?: number,
): Refusal {
  return retryAfterSeconds === undefined ? { code, message, details } : { code, message, details, retryAfterSeconds };
}

/** A decision step's answer: a value, or the refusal that ends the decision. */
export type Decided<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export const decided = <T>(value: T): Decided<T> => ({ ok: true, value });
export const refused = <T>(r: Refusal): Decided<T> => ({ ok: false, refusal: r });

/** Warnings on a label creation (docs/decisions/0114-creation-object-additions.md). */
export const WARNING_CODES = [
  'cod_adjusted',
  'request_parameters_not_applied',
  'cod_conversion_metafield_ignored',
  'missing_phone',
  'pickup_point_not_used',
] as const;
export type WarningCode = (typeof WARNING_CODES)[number];

export interface CreationWarning {
  code: WarningCode;
  message: string;
  /** Code-specific values; absent when there are none. */
  details?: Record<string, unknown>;
}

/** `label_validation_failed` issue codes (spec "Errors", enumerations). */
export const VALIDATION_ISSUE_CODES = [
  'pickup_point_required',
  'pickup_point_malformed',
  'cod_not_supported',
  'cod_metafield_invalid',
  'cod_dropped_by_carrier_module',
  'carrier_a_foreign_pickup_point',
  'pickup_point_id_missing',
  'cod_packet_currency_mismatch',
  'cod_bank_account_missing',
  'cod_variable_symbol_missing',
  'missing_phone',
  'psd_requires_carrier_point',
  'account_config_incomplete',
  'email_invalid',
  'cod_foreign_pickup_point',
] as const;
export type ValidationIssueCode = (typeof VALIDATION_ISSUE_CODES)[number];

export interface ValidationIssue {
  code: ValidationIssueCode;
  /** The order metafield or request field at fault, where there is one. */
  field?: string;
  /** The offending raw value, or the internal check name for `account_config_incomplete`. */
  raw?: string;
}
