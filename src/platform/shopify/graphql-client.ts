import { httpCall, HttpCallError, type HttpAnswer } from '../../net/http-call';
import { PlatformAccessError, PlatformUnauthorizedError, PlatformUnavailableError } from '../port';
import { CostBuckets, type ThrottleStatus } from './bucket';
import type { AdminDocument } from './queries';

export interface ShopifyConnection {
  /** `https://{shop}/admin/api/{version}/graphql.json`, or the fake's address in tests. */
  adminUrl: string;
  apiVersion: string;
  timeoutMs: number;
}

interface GraphqlError {
  message: string;
  path?: Array<string | number>;
  extensions?: { code?: string; requiredAccess?: string };
}

interface GraphqlAnswer<T> {
  data?: T | null;
  errors?: GraphqlError[] | string;
  extensions?: { cost?: { requestedQueryCost: number; throttleStatus: ThrottleStatus } };
}

/** What the client tells about Shopify's answers besides their data (logs and metrics; `src/adapters.ts`). */
export interface ShopifyObserver {
  /** Shopify served another API version than the pinned one (the pinned one is past its support, say). */
  versionServed(shop: string, served: string): void;
  /** The request used fields Shopify deprecates (`X-Shopify-API-Deprecated-Reason`). */
  deprecated(shop: string, reason: string): void;
  /** A field was refused for a scope the installation lacks or protected customer data (`access`). */
  accessDenied(shop: string, what: string, access: string): void;
}

const PROTECTED_DATA = 'protected customer data approval';

/**
 * What a refused field needs: its `requiredAccess` (or the scope its message names), protected customer data, or, where
 * Shopify names neither (a type's scope, not the field's), access to the field at its path.
 */
function refusedAccess(errors: readonly GraphqlError[]): string | null {
  for (const e of errors) {
    if (/not approved to access/i.test(e.message)) return PROTECTED_DATA;
    if (e.extensions?.code !== 'ACCESS_DENIED') continue;
    const named = e.extensions.requiredAccess ?? /Required access: (.*)$/.exec(e.message)?.[1];
    return named ?? `access to ${e.path?.join('.') ?? 'a field'}`;
  }
  return null;
}

/** A scope the installation need not hold refused one field the document marks optional: that field reads as null. */
function optionalRefusal(document: AdminDocument<unknown, unknown>, e: GraphqlError): boolean {
  const key = e.path?.findLast((p): p is string => typeof p === 'string');
  return e.extensions?.code === 'ACCESS_DENIED' && key !== undefined && !!document.optionalFields?.includes(key);
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
 * usable session; a 401 as `PlatformUnauthorizedError`), 429 or `THROTTLED` (throttled, with the bucket's wait), 5xx, a timeout or a broken connection. No
 * retries here: the caller's retry policy (a workflow activity's, or the client's on 503) owns them, so one port call
 * is one request (decision 0703).
 */
export class ShopifyGraphqlClient {
  private readonly requestedCost = new Map<string, number>();

  constructor(
    private readonly connection: ShopifyConnection,
    private readonly buckets: CostBuckets = new CostBuckets(),
    private readonly observer?: ShopifyObserver,
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
    // The token is not (or no longer) good: the adapter decides what that means for the session (decision 0710).
    if (answer.status === 401) throw new PlatformUnauthorizedError(what);
    if (answer.status !== 200) throw new PlatformUnavailableError(what, false, null);
    const header = (name: string) => [answer.headers[name]].flat()[0];
    const served = header('x-shopify-api-version');
    if (served && served !== this.connection.apiVersion) this.observer?.versionServed(shop, served);
    const deprecated = header('x-shopify-api-deprecated-reason');
    if (deprecated) this.observer?.deprecated(shop, deprecated);
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
    const errors = (Array.isArray(body.errors) ? body.errors : body.errors ? [{ message: body.errors }] : []).filter(
      (e) => !optionalRefusal(document, e),
    );
    if (errors.some((e) => e.extensions?.code === 'THROTTLED'))
      throw new PlatformUnavailableError(
        what,
        true,
        this.buckets.retryAfterSeconds(shop, reported?.requestedQueryCost ?? cost),
      );
    // A scope the installation lacks, or customer data the app is not approved for: no outage (decision 0706).
    const access = refusedAccess(errors);
    if (access) {
      this.observer?.accessDenied(shop, what, access);
      throw new PlatformAccessError(what, access);
    }
    // Shopify's own failure: unavailable, as a 5xx is.
    if (errors.some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR'))
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
