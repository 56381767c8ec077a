import type { GeoPoint } from '../domain/pickup-points';
import type { Logger } from '../logger';
import { ProviderCallError, type ProviderClient, type ProviderHeader } from './provider-client';
import { InvalidProviderAnswerError, validateProviderAnswer, type ValidatedAnswer } from './provider-contract';

/** A store's custom provider as the search needs it (headers decrypted). */
export interface ProviderRecord {
  id: string;
  storeId: string;
  code: string;
  name: string;
  url: string;
  headers: ProviderHeader[];
  /** Part of the cache key: a configuration change never serves an answer of the old configuration. */
  updatedAt: Date;
}

export interface ProviderSearchInput {
  location: GeoPoint;
  countryCode: string;
  /** The store platform domain (contract field `shop`). */
  shop: string;
}

export interface ProviderSearchResult {
  /** `fresh` from the provider now, `cached` within the cache TTL, `stale` standing in for a failed call. */
  freshness: 'fresh' | 'cached' | 'stale';
  answer: ValidatedAnswer;
  /** The failure a stale answer stands in for. */
  failure: ProviderCallError | null;
}

export interface ProviderSearchOptions {
  client: ProviderClient;
  cacheTtlMs: number;
  /** How long an answer may stand in while the provider is down. */
  staleTtlMs: number;
  now: () => Date;
  logger: Logger;
  maxEntries?: number;
  /** Counts each answer's dropped items (`item`) and left-out optional fields (by field), as they arrive. */
  onDropped?: (part: string, count: number) => void;
}

export type ProviderSearch = (provider: ProviderRecord, input: ProviderSearchInput) => Promise<ProviderSearchResult>;

/** A 400 says our request is wrong for this provider: an older answer is no better, so it never stands in. */
const staleMayStandIn = (failure: ProviderCallError) =>
  !(failure.kind === 'http_error' && (failure.details.status ?? 0) < 500) && failure.kind !== 'blocked_target';

/**
 * Searches one custom provider with a short per-process cache keyed by the location (decisions 0202, 0135):
 * identical searches in flight share one call, answers are reused within `cacheTtlMs`, and kept up to `staleTtlMs`
 * to stand in when the provider fails. Every failure and every dropped item is logged for the operator with the
 * provider's own message.
 */
export function createProviderSearch(options: ProviderSearchOptions): ProviderSearch {
  const cache = new Map<string, { answer: ValidatedAnswer; storedAt: number }>();
  const inFlight = new Map<string, Promise<ValidatedAnswer>>();
  const maxEntries = options.maxEntries ?? 5_000;

  const remember = (key: string, answer: ValidatedAnswer) => {
    cache.delete(key);
    cache.set(key, { answer, storedAt: options.now().getTime() });
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  };

  const countDropped = (validated: ValidatedAnswer) => {
    if (!options.onDropped) return;
    if (validated.dropped.length > 0) options.onDropped('item', validated.dropped.length);
    const byField = new Map<string, number>();
    for (const d of validated.droppedFields) byField.set(d.field, (byField.get(d.field) ?? 0) + 1);
    for (const [field, count] of byField) options.onDropped(field, count);
  };

  const callProvider = async (provider: ProviderRecord, input: ProviderSearchInput, origin: GeoPoint) => {
    const answer = await options.client(
      { url: provider.url, headers: provider.headers },
      { ...origin, countryCode: input.countryCode, shop: input.shop },
    );
    let validated: ValidatedAnswer;
    try {
      validated = validateProviderAnswer(answer.body, origin);
    } catch (error) {
      if (!(error instanceof InvalidProviderAnswerError)) throw error;
      throw new ProviderCallError('invalid_answer', error.message, {
        status: answer.status,
        providerMessage: null,
        attempts: answer.attempts,
      });
    }
    countDropped(validated);
    const { dropped, droppedFields } = validated;
    if (dropped.length + droppedFields.length + validated.ignoredOverLimit + validated.outOfOrder.length > 0) {
      options.logger.warn(
        {
          pickup_provider_id: provider.id,
          store_id: provider.storeId,
          received: validated.received,
          dropped: dropped.length,
          first_problems: dropped.slice(0, 3).map((d) => ({ index: d.index, problems: d.problems })),
          dropped_fields: droppedFields.length,
          first_field_problems: droppedFields.slice(0, 3).map((d) => ({ index: d.index, problem: d.problem })),
          ignored_over_limit: validated.ignoredOverLimit,
          out_of_order: validated.outOfOrder.length,
        },
        'custom pickup point provider answered with items or fields the service does not show',
      );
    }
    return validated;
  };

  return async (provider, input) => {
    // The customer's location as it is, never rounded: the contract asks for it, and the provider's 50 nearest (and
    // every distance) are those of the true point (docs/decisions/0135-customer-location-to-providers.md).
    const origin = input.location;
    const key = [provider.id, provider.updatedAt.getTime(), origin.latitude, origin.longitude, input.countryCode].join(
      '|',
    );
    const cached = cache.get(key);
    const now = options.now().getTime();
    if (cached && now - cached.storedAt < options.cacheTtlMs)
      return { freshness: 'cached', answer: cached.answer, failure: null };
    let call = inFlight.get(key);
    if (!call) {
      call = callProvider(provider, input, origin).finally(() => inFlight.delete(key));
      inFlight.set(key, call);
    }
    try {
      const answer = await call;
      remember(key, answer);
      return { freshness: 'fresh', answer, failure: null };
    } catch (error) {
      if (!(error instanceof ProviderCallError)) throw error;
      const stale = cached && now - cached.storedAt < options.staleTtlMs && staleMayStandIn(error) ? cached : null;
      options.logger.warn(
        {
          pickup_provider_id: provider.id,
          store_id: provider.storeId,
          failure: error.kind,
          status: error.details.status,
          provider_message: error.details.providerMessage,
          attempts: error.details.attempts,
          served_stale: stale !== null,
        },
        `custom pickup point provider failed: ${error.message}`,
      );
      if (stale) return { freshness: 'stale', answer: stale.answer, failure: error };
      throw error;
    }
  };
}
