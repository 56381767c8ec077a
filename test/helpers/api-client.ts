import { createShippingLabelClient, type ShippingLabelClient } from '../../client/src/index';
import { checkedFetch } from './contract';
import type { TestResponse } from './test-app';

/**
 * The typed client (client/) as a merchant uses it, against a test app; every answer goes through the same contract
 * check as `TestApp.request`.
 */
export function apiClient(app: { baseUrl: string }, secret?: string): ShippingLabelClient {
  return createShippingLabelClient({
    baseUrl: `${app.baseUrl}/v1`,
    ...(secret ? { apiKey: secret } : {}),
    fetch: checkedFetch(app.baseUrl),
  });
}

/** An answer of the typed client in the shape of `TestApp.request`'s, so suites assert both alike. */
export async function answer(
  call: Promise<{ data?: unknown; error?: unknown; response: Response }>,
): Promise<TestResponse> {
  const { data, error, response } = await call;
  // PDFs are asked for with `parseAs: 'arrayBuffer'`; errors are always the JSON error body.
  if (data instanceof ArrayBuffer) {
    return { status: response.status, headers: response.headers, body: undefined, text: '', bytes: Buffer.from(data) };
  }
  return { status: response.status, headers: response.headers, body: data ?? error, text: '', bytes: Buffer.alloc(0) };
}
