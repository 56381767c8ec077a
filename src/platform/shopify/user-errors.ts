import type {
  FulfillmentCreateMutation,
  FulfillmentOrderHoldMutation,
  FulfillmentOrderReleaseHoldMutation,
  PickupPointSetMutation,
  TagsAddMutation,
} from './admin.generated';
import { PlatformRequestError } from '../port';

type ErrorsOf<T extends { userErrors: readonly unknown[] } | null> = NonNullable<T>['userErrors'][number];

/** A mutation's `userErrors` entry, as the documents ask for it (plain `UserError`s have no `code`). */
export type UserError =
  | ErrorsOf<FulfillmentCreateMutation['fulfillmentCreate']>
  | ErrorsOf<TagsAddMutation['tagsAdd']>
  | ErrorsOf<PickupPointSetMutation['metafieldsSet']>;

/** The holds' `userErrors`, with Shopify's codes. */
export type HoldUserError =
  | ErrorsOf<FulfillmentOrderHoldMutation['fulfillmentOrderHold']>
  | ErrorsOf<FulfillmentOrderReleaseHoldMutation['fulfillmentOrderReleaseHold']>;

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
