import { httpCall, HttpCallError, type HttpAnswer } from '../../net/http-call';
import { PlatformUnavailableError } from '../port';
import { CostBuckets, type ThrottleStatus } from './bucket';
import type { AdminDocument } from './queries';

export interface ShopifyConnection {
  /** `https://{shop}/admin/api/{version}/graphql.json`, or the fake's address in tests. */
  adminUrl: string;
  apiVersion: string;
  timeoutMs: number;
}

interface GraphqlAnswer<T> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }> | string;
  extensions?: { cost?: { requestedQueryCost: number; throttleStatus: ThrottleStatus } };
}

/** What a query costs before Shopify has told us (its requested cost is remembered per document after that). */
const FIRST_GUESS_COST = 100;

/** The request URL of a store's Admin API in the pinned version. */
export function adminEndpoint(template: string, shop: string, apiVersion: string): string {
  return template.replace('{shop}', encodeURIComponent(shop)).replace('{version}', encodeURIComponent(apiVersion));
}

/**
 * One Admin GraphQL request per call over the project's outbound HTTP function, with its time box. Every way the
 * platform does not answer usably is `PlatformUnavailableError` (spec `shopify_unavailable`): no token, 401/403 (no
 * usable session), 429 or `THROTTLED` (throttled, with the bucket's wait), 5xx, a timeout or a broken connection. No
 * retries here: the caller's retry policy (a workflow activity's, or the client's on 503) owns them, so one port call
 * is one request (decision 0703).
 */
export class ShopifyGraphqlClient {
  private readonly requestedCost = new Map<string, number>();

  constructor(
    private readonly connection: ShopifyConnection,
    private readonly buckets: CostBuckets = new CostBuckets(),
  ) {}

  async request<T, V>(
    what: string,
    shop: string,
    token: string | null,
    document: AdminDocument<T, V>,
    variables: V,
  ): Promise<T> {
    if (!token) throw new PlatformUnavailableError(what, false, null);
    const cost = this.requestedCost.get(document.text) ?? FIRST_GUESS_COST;
    const admission = this.buckets.admit(shop, cost);
    if ('refuse' in admission) throw new PlatformUnavailableError(what, true, admission.retryAfterSeconds);
    if (admission.wait > 0) await new Promise((resolve) => setTimeout(resolve, admission.wait));

    let answer: HttpAnswer;
    try {
      answer = await httpCall({
        url: adminEndpoint(this.connection.adminUrl, shop, this.connection.apiVersion),
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
        body: JSON.stringify({ query: document.text, variables }),
        timeoutMs: this.connection.timeoutMs,
        maxResponseBytes: 5 * 1024 * 1024,
      });
    } catch (error) {
      if (error instanceof HttpCallError) throw new PlatformUnavailableError(what, false, null);
      throw error;
    }
    if (answer.status === 429) {
      const retryAfter = Number(answer.headers['retry-after'] ?? '') || this.buckets.retryAfterSeconds(shop, cost);
      throw new PlatformUnavailableError(what, true, retryAfter);
    }
    if (answer.status !== 200) throw new PlatformUnavailableError(what, false, null);
    let body: GraphqlAnswer<T>;
    try {
      body = JSON.parse(answer.bytes.toString('utf8')) as GraphqlAnswer<T>;
    } catch {
      throw new PlatformUnavailableError(what, false, null);
    }
    const reported = body.extensions?.cost;
    if (reported) {
      this.buckets.report(shop, reported.throttleStatus);
      this.requestedCost.set(document.text, reported.requestedQueryCost);
    }
    const errors = Array.isArray(body.errors) ? body.errors : body.errors ? [{ message: body.errors }] : [];
    if (errors.some((e) => e.extensions?.code === 'THROTTLED'))
      throw new PlatformUnavailableError(
        what,
        true,
        this.buckets.retryAfterSeconds(shop, reported?.requestedQueryCost ?? cost),
      );
    // Shopify's own failure, or a token without the scope the query needs: unavailable, as a 5xx or a 401 is.
    if (errors.some((e) => ['INTERNAL_SERVER_ERROR', 'ACCESS_DENIED'].includes(e.extensions?.code ?? '')))
      throw new PlatformUnavailableError(what, false, null);
    // Any other top-level error is a query Shopify did not run (a field this version lacks, an internal error).
    if (errors.length > 0 || !body.data) throw new ShopifyQueryError(what, errors.map((e) => e.message).join('; '));
    return body.data;
  }
}

/**
 * Shopify refused the query itself (not a business refusal): after an API version change, a field or argument the
 * pinned version does not have. Nothing a retry fixes; the contract tests against the fake catch it first.
 */
export class ShopifyQueryError extends Error {
  override readonly name = 'ShopifyQueryError';
  constructor(
    readonly what: string,
    message: string,
  ) {
    super(`Shopify refused the ${what} query: ${message}`);
  }
}
