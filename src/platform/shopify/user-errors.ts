import { PlatformRequestError } from '../port';

/** A mutation's `userErrors` entry; `code` only where the mutation's error type has one. */
export interface UserError {
  field: string[] | null;
  message: string;
  code?: string | null;
}

/**
 * `fulfillmentCreate` answers plain `UserError`s (no code), so the stable code is read from the message: the same codes
 * the sandbox platform gives (`not_found`, `on_hold`, `not_open`), else `refused`.
 */
export function fulfillmentRefusalCode(messages: readonly string[]): string {
  const text = messages.join(' ').toLowerCase();
  if (/not found|does not exist|could not be found/.test(text)) return 'not_found';
  if (/on hold|\bheld\b/.test(text)) return 'on_hold';
  if (/closed|cancel|not open|already fulfilled|status/.test(text)) return 'not_open';
  return 'refused';
}

export function fulfillmentRefusal(errors: readonly UserError[]): PlatformRequestError {
  const messages = errors.map((e) => e.message);
  return new PlatformRequestError(
    fulfillmentRefusalCode(messages),
    messages.length > 0 ? messages.join('; ') : 'fulfillment refused',
  );
}
