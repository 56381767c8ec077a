import type { ShippingLabelClient } from './client.js';
import { ShippingLabelApiError } from './errors.js';
import type { LabelCreationPage, LabelCreationQuery, LabelPage, LabelQuery } from './types.js';

/**
 * The pages of `GET /labels`, first to last: each request passes the previous page's `next_cursor` with the same
 * filters, until `has_more` is false (the sync feed, `sort=created_at`, ends at the newest label old enough to be
 * listed; ask again later with its last cursor to go on). A refusal throws `ShippingLabelApiError`.
 *
 *     for await (const page of labelPages(api, { order_id: '1001' })) for (const label of page.data) ...
 */
export async function* labelPages(api: ShippingLabelClient, query: LabelQuery = {}): AsyncGenerator<LabelPage> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await api.GET('/labels', {
      params: { query: { ...query, ...(cursor === undefined ? {} : { cursor }) } },
    });
    if (error) throw new ShippingLabelApiError(response.status, error, response.headers);
    yield data;
    cursor = data.has_more && data.next_cursor ? data.next_cursor : undefined;
  } while (cursor !== undefined);
}

/** The pages of `GET /label-creations`, newest first, like `labelPages`. */
export async function* labelCreationPages(
  api: ShippingLabelClient,
  query: LabelCreationQuery = {},
): AsyncGenerator<LabelCreationPage> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await api.GET('/label-creations', {
      params: { query: { ...query, ...(cursor === undefined ? {} : { cursor }) } },
    });
    if (error) throw new ShippingLabelApiError(response.status, error, response.headers);
    yield data;
    cursor = data.has_more && data.next_cursor ? data.next_cursor : undefined;
  } while (cursor !== undefined);
}
