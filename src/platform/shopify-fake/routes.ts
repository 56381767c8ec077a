import {
  execute,
  GraphQLError,
  Kind,
  NoDeprecatedCustomRule,
  OperationTypeNode,
  parse,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
} from 'graphql';
import { z } from 'zod';
import { BadRequest, json, sleep, type Reply, type Router, type SandboxRequest } from '../../sandbox/http';
import type { PlatformSandboxState } from '../sandbox/state';
import { actualCost, requestedCost, type Operation } from './cost';
import { mutationRoot } from './mutations';
import { queryRoot, type UserErrorFault } from './resolvers';
import { REQUIRED_SHOPIFY_SCOPES } from '../shopify/scopes';
import { accessFieldResolver, type AppGrants } from './access';
import { surfaceValue } from './metafields';
import { adminSchema, adminSchemaManifest } from './admin-schema';
import { registerShopifyAppFake } from './app';
import { FakeTokens } from './tokens';
import type { Bucket, MutationFault, ShopState } from './shop-state';

/** The API versions the fake serves: the one the service pins and the next (Shopify's schemas, admin-schema/). */
export const FAKE_API_VERSIONS: readonly string[] = (() => {
  const { pinned, next } = adminSchemaManifest();
  return [pinned, next];
})();

/**
 * The version Shopify serves a request for: the asked one while it is supported; an older stable one falls forward
 * to the oldest supported (here the pinned one), as Shopify does once a version's year is over; anything else none.
 */
export function servedVersion(asked: string): string | null {
  if (FAKE_API_VERSIONS.includes(asked)) return asked;
  const oldest = FAKE_API_VERSIONS[0]!;
  return /^\d{4}-(01|04|07|10)$/.test(asked) && asked < oldest ? oldest : null;
}
/** Shopify's single-query limit and a Standard plan's bucket (docs/shopify.md, "Throttling"). */
const MAX_QUERY_COST = 1000;
const DEFAULT_BUCKET = { maximumAvailable: 2000, restoreRate: 100 };

const shopifyFaultSchema = z.discriminatedUnion('type', [
  z
    .object({ type: z.literal('user_error'), message: z.string().min(1), code: z.string().nullable().default(null) })
    .strict(),
  z.object({ type: z.literal('http_429'), retry_after_seconds: z.number().int().min(0).max(3600).default(2) }).strict(),
  z
    .object({
      type: z.literal('mutation'),
      mutation: z.string().min(1),
      after: z.number().int().min(0).default(0),
      outcome: z.enum(['unavailable', 'late_answer']),
      delay_ms: z.number().int().min(0).max(120_000).default(0),
    })
    .strict(),
]);

/**
 * The queued fault of this mutation, if its turn has come (taken from the queue); one whose `after` is not spent lets
 * this one through and counts it.
 */
function mutationFault(s: ShopState, operation: OperationDefinitionNode): MutationFault | null {
  const head = s.faults[0];
  const field = operation.selectionSet.selections[0];
  if (head?.type !== 'mutation' || field?.kind !== Kind.FIELD || field.name.value !== head.mutation) return null;
  if (head.after > 0) {
    head.after -= 1;
    return null;
  }
  s.faults.shift();
  return head;
}

function refilled(b: Bucket, now: number): Bucket {
  const available = Math.min(b.maximumAvailable, b.currentlyAvailable + ((now - b.at) / 1000) * b.restoreRate);
  return { ...b, currentlyAvailable: available, at: now };
}

const throttleStatus = (b: Bucket) => ({
  maximumAvailable: b.maximumAvailable,
  currentlyAvailable: Math.floor(b.currentlyAvailable),
  restoreRate: b.restoreRate,
});

const throttled = (requested: number, b: Bucket): Reply =>
  json(200, {
    errors: [
      {
        message: 'Throttled',
        extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' },
      },
    ],
    extensions: { cost: { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: throttleStatus(b) } },
  });

const graphqlErrors = (errors: readonly GraphQLError[]): Reply => json(200, { errors: errors.map((e) => e.toJSON()) });

/**
 * A fake Shopify Admin GraphQL API for tests (docs/shopify.md, "The fake"): `POST /shopify/{shop}/admin/api/{version}/
 * graphql.json`, executing the adapter's real documents against the schema subset in schema.ts over the sandbox
 * platform's store state, so the tests seed orders, export holds and faults through the sandbox platform's control API
 * and read fulfillments from it whichever platform the store is on. It checks the access token, keeps each shop's
 * leaky bucket of query cost and answers its scripted faults: the sandbox platform's (slow, throttled, unavailable,
 * unauthorized) and its own (`/_control/shopify/{shop}/faults`: a user error on the next mutation, an HTTP 429, a
 * given mutation unavailable or answered too late after it committed).
 */
export function registerShopifyFake(router: Router, state: PlatformSandboxState): void {
  const shops = new Map<string, ShopState>();
  const tokens = new FakeTokens();
  let shopIds = 0;
  const shop = (domain: string): ShopState => {
    let s = shops.get(domain);
    if (!s) {
      const handle = domain.split('.')[0]!;
      s = {
        id: 60_000_000 + (shopIds += 1),
        name: `Shop ${handle}`,
        email: `owner@${domain}`,
        accessToken: null,
        tokenApp: CUSTOM_APP_ID,
        installedApp: null,
        formerApp: null,
        grants: { scopes: REQUIRED_SHOPIFY_SCOPES, customerDataLevel: 2 },
        otherApps: new Map(),
        definitions: new Map(),
        bucket: { ...DEFAULT_BUCKET, currentlyAvailable: DEFAULT_BUCKET.maximumAvailable, at: Date.now() },
        faults: [],
        requests: 0,
      };
      shops.set(domain, s);
    }
    return s;
  };

  router.add('POST', '/shopify/:shop/admin/api/:version/graphql.json', async (request) => {
    const domain = request.params.shop!;
    const s = shop(domain);
    s.requests += 1;
    const version = servedVersion(request.params.version!);
    if (!version) return json(404, { errors: 'Not Found' });
    const scripted = await sandboxFault(state, domain);
    if (scripted && scripted !== 'throttle') return scripted;
    const own = s.faults[0]?.type === 'http_429' ? s.faults.shift() : undefined;
    if (own?.type === 'http_429')
      return json(
        429,
        { errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' },
        {
          'retry-after': String(own.retry_after_seconds),
        },
      );
    const caller = callerOf(
      s,
      tokens.admits(domain, s, request.headers['x-shopify-access-token']),
      request.headers['x-shopify-access-token'],
    );
    if (!caller)
      return json(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    const reply = await runGraphql(state, domain, s, request, { version, throttle: scripted === 'throttle', caller });
    // Every answer says which version served it (Shopify's X-Shopify-API-Version).
    return reply.kind === 'json'
      ? { ...reply, headers: { ...reply.headers, 'x-shopify-api-version': version } }
      : reply;
  });

  const control = '/_control/shopify/:shop';
  // An installation: its token, the scopes the merchant granted (default: exactly the ones the service documents) and
  // the protected customer data Shopify approved for the app (default: all, as for a custom app).
  router.add('PUT', `${control}/session`, async (request) => {
    const body = parseBody(
      z
        .object({
          access_token: z.string().min(1).nullable(),
          scopes: z.array(z.string().regex(/^(read|write)_[a-z_]+$/)).optional(),
          customer_data_level: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
          /** The custom app the token is of (its `$app` namespace); one custom app unless named. */
          app_id: z
            .string()
            .regex(/^[a-z0-9_-]+$/)
            .optional(),
        })
        .strict(),
      request.body,
    );
    const s = shop(request.params.shop!);
    s.accessToken = body.access_token;
    s.tokenApp = body.app_id ?? CUSTOM_APP_ID;
    s.grants = {
      scopes: body.scopes ?? REQUIRED_SHOPIFY_SCOPES,
      customerDataLevel: body.customer_data_level ?? 2,
    };
    return json(200, { shop: request.params.shop, session: body.access_token !== null, ...s.grants });
  });
  router.add('PUT', `${control}/bucket`, async (request) => {
    const body = parseBody(
      z
        .object({
          maximum_available: z.number().int().min(1),
          currently_available: z.number().int().min(0),
          restore_rate: z.number().int().min(1),
        })
        .strict(),
      request.body,
    );
    shop(request.params.shop!).bucket = {
      maximumAvailable: body.maximum_available,
      currentlyAvailable: body.currently_available,
      restoreRate: body.restore_rate,
      at: Date.now(),
    };
    return json(200, { shop: request.params.shop, bucket: body });
  });
  router.add('POST', `${control}/faults`, async (request) => {
    const body = parseBody(z.object({ faults: z.array(shopifyFaultSchema).min(1) }).strict(), request.body);
    shop(request.params.shop!).faults.push(...body.faults);
    return json(201, { shop: request.params.shop, faults: shop(request.params.shop!).faults });
  });
  router.add('GET', `${control}/requests`, async (request) =>
    json(200, { shop: request.params.shop, requests: shop(request.params.shop!).requests }),
  );
  registerOtherApps(router, state, shop);
  registerShopifyAppFake(router, shop, tokens);
  tokens.registerControl(router, shop);
}

/** The custom app a token set through `PUT .../session` is of, unless the test names another. */
const CUSTOM_APP_ID = 'custom-app';

/**
 * The app a request's access token is of, with its grants; null for a token of none. `installed`: the token is the
 * shop's installation's and still valid (./tokens.ts: expiry, cut-over).
 */
function callerOf(
  s: ShopState,
  installed: boolean,
  token: string | string[] | undefined,
): { appId: string; grants: AppGrants } | null {
  if (typeof token !== 'string') return null;
  if (installed) return { appId: s.tokenApp, grants: s.grants };
  return s.otherApps.get(token) ?? null;
}

/**
 * Other apps on the shop and the surfaces outside the Admin API (decision 0719): another app's token (it calls the
 * Admin API as itself), and what the Storefront API and checkout or customer accounts read of an order's metafield
 * (metafields.ts: as its definition grants; 403 when it does not).
 */
function registerOtherApps(router: Router, state: PlatformSandboxState, shop: (domain: string) => ShopState): void {
  router.add('PUT', '/_control/shopify/:shop/apps/:app', async (request) => {
    const body = parseBody(
      z.object({ access_token: z.string().min(16), scopes: z.array(z.string()).optional() }).strict(),
      request.body,
    );
    const s = shop(request.params.shop!);
    const grants: AppGrants = { scopes: body.scopes ?? REQUIRED_SHOPIFY_SCOPES, customerDataLevel: 2 };
    s.otherApps.set(body.access_token, { appId: request.params.app!, grants });
    return json(200, { shop: request.params.shop, app: request.params.app, ...grants });
  });
  router.add('GET', '/_control/shopify/:shop/orders/:order/metafields/:namespace/:key', async (request) => {
    const surface = request.query.get('surface');
    if (surface !== 'storefront' && surface !== 'customer_account')
      throw new BadRequest('surface is storefront or customer_account');
    const domain = request.params.shop!;
    const order = state.store(domain).orders.get(request.params.order!);
    if (!order) return json(404, { error: 'no such order' });
    const read = surfaceValue(shop(domain).definitions, order, request.params.namespace!, request.params.key!, surface);
    return read ? json(200, read) : json(403, { error: `the metafield's definition does not grant ${surface} access` });
  });
}

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new BadRequest('control body is invalid', parsed.error.issues);
  return parsed.data;
}

/**
 * The sandbox platform's scripted faults in Shopify's shapes; a slow one delays the call and lets it through, a
 * throttled one is answered once the query's cost is known.
 */
async function sandboxFault(state: PlatformSandboxState, domain: string): Promise<Reply | 'throttle' | null> {
  const fault = state.takeFault(domain);
  if (!fault) return null;
  if (fault.type === 'slow') {
    await sleep(fault.delay_ms);
    return null;
  }
  if (fault.type === 'unauthorized')
    return json(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
  if (fault.type === 'unavailable') return json(503, { errors: 'Service Unavailable' });
  return 'throttle';
}

async function runGraphql(
  state: PlatformSandboxState,
  domain: string,
  s: ShopState,
  request: SandboxRequest,
  options: { version: string; throttle: boolean; caller: { appId: string; grants: AppGrants } },
): Promise<Reply> {
  const { schema } = adminSchema(options.version);
  const body = (request.body ?? {}) as { query?: unknown; variables?: unknown; operationName?: unknown };
  if (typeof body.query !== 'string') return json(400, { errors: { query: 'Required parameter missing or invalid' } });
  let document: DocumentNode;
  try {
    document = parse(body.query);
  } catch (error) {
    return graphqlErrors([error as GraphQLError]);
  }
  const invalid = validate(schema, document);
  if (invalid.length > 0) return graphqlErrors(invalid);
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) return graphqlErrors([new GraphQLError('No operation')]);
  const variables = (body.variables ?? {}) as Record<string, unknown>;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const op: Operation = { schema, operation, fragments, variables };
  const requested = requestedCost(op);
  if (requested > MAX_QUERY_COST)
    return json(200, {
      errors: [
        {
          message: `Query cost is ${requested}, which exceeds the single query max cost limit (${MAX_QUERY_COST}).`,
          extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: MAX_QUERY_COST },
        },
      ],
    });
  const bucket = refilled(s.bucket, Date.now());
  // A scripted throttle: the bucket one second of restore short of this query (other calls of the app spent it).
  if (options.throttle)
    return throttled(requested, { ...bucket, currentlyAvailable: Math.max(0, requested - bucket.restoreRate) });
  if (bucket.currentlyAvailable < requested) {
    s.bucket = bucket;
    return throttled(requested, bucket);
  }
  const mutation = operation.operation === OperationTypeNode.MUTATION;
  const fault = mutation ? mutationFault(s, operation) : null;
  if (fault?.outcome === 'unavailable') return json(503, { errors: 'Service Unavailable' });
  const userError = mutation && s.faults[0]?.type === 'user_error' ? (s.faults.shift() as UserErrorFault) : null;
  const ctx = {
    store: state.store(domain),
    nextId: () => state.nextId(),
    userError,
    grants: options.caller.grants,
    appId: options.caller.appId,
    definitions: s.definitions,
    nowMs: Date.now(),
    shop: { name: s.name, email: s.email },
  };
  const result = await execute({
    schema,
    document,
    rootValue: mutation ? mutationRoot(ctx) : queryRoot(ctx),
    variableValues: variables,
    fieldResolver: accessFieldResolver(adminSchema(options.version), options.caller.grants),
  });
  // Committed, but the answer comes too late for the caller: a timeout after Shopify did it.
  if (fault?.outcome === 'late_answer') await sleep(fault.delay_ms);
  const actual = result.data ? actualCost(op, result.data) : requested;
  s.bucket = { ...bucket, currentlyAvailable: bucket.currentlyAvailable - actual };
  // Shopify names the deprecated fields a request used (since 2025-04).
  const deprecated = validate(schema, document, [NoDeprecatedCustomRule]).map(
    (e) => /The field ([\w.]+) is deprecated/.exec(e.message)?.[1] ?? e.message,
  );
  return json(
    200,
    {
      ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}),
      data: result.data ?? null,
      extensions: {
        cost: { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: throttleStatus(s.bucket) },
      },
    },
    deprecated.length > 0 ? { 'x-shopify-api-deprecated-reason': deprecated.join(', ') } : {},
  );
}
