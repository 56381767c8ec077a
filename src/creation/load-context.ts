import type { EntityManager } from '@mikro-orm/postgresql';
import { numberedPlaceholders, runPrepared } from '../db/prepared';
import { toHundredths } from '../domain/cod-rounding';
import type {
  ContextCarrierAccount,
  ContextCreation,
  ContextFulfillmentOrder,
  ContextLabel,
  ContextOrder,
  ContextRule,
  CreationContext,
  OrderLookup,
} from '../domain/creation-context';
import type { CreationRequest } from '../domain/creation-request';
import { fromPlatform } from '../platform/unavailable';
import type { CodSource, CurrentSet, LabelKind, LabelSource, LabelStatus } from '../domain/labels';
import type { CarrierAccount } from '../db/entities/carrier-account';
import type { CarrierRule } from '../db/entities/carrier-rule';
import type { StoreSettings } from '../db/entities/store-settings';
import { sessionInfo } from '../db/platform-sessions-repository';
import { LIVE_LOCKS_JSON, liveLocksValues, type LockHolder } from '../locks/fulfillment-order-locks';
import { holdersOf, LOCK_STALE_AFTER_MS } from '../locks/holders';
import { type PlatformFulfillmentOrder, type PlatformOrder, type StorePlatformPort } from '../platform/port';

export interface LoadContextDeps {
  em: EntityManager;
  platform: Pick<StorePlatformPort, 'getOrderWithFulfillmentOrders' | 'findOrdersByName' | 'listFulfillmentOrders'>;
}

export interface LoadContextInput {
  storeId: string;
  request: Pick<CreationRequest, 'order'>;
  /** The live creation loading its own context (its lock and record are not a reason to wait). */
  selfCreationId?: string | null;
  /** A `processing` lock holder that has not moved this long is dead (`src/locks/holders.ts`). */
  lockStaleAfterMs?: number;
}

const readFromPlatform = <T>(what: string, call: () => Promise<T>) =>
  fromPlatform(what, call, 'Reading the order from the store platform failed; retry shortly.');

function contextOrder(o: PlatformOrder): ContextOrder {
  return {
    id: o.id,
    legacyId: o.legacyId,
    name: o.name,
    currency: o.currency,
    totalPrice: o.totalPrice,
    totalOutstanding: o.totalOutstanding,
    paymentGateways: o.paymentGateways,
    metafields: o.metafields,
    shippingAddress: o.shippingAddress,
    phone: o.phone,
    email: o.email,
    deliveryMethod: o.deliveryMethod,
    tags: o.tags,
    cancelled: o.cancelledAt !== null,
  };
}

function contextFulfillmentOrder(fo: PlatformFulfillmentOrder): ContextFulfillmentOrder {
  const weights = fo.lineItems.map((l) => (l.weightGrams === null ? null : l.weightGrams * l.quantity));
  return {
    id: fo.id,
    legacyId: fo.legacyId,
    status: fo.status,
    assignedLocationId: fo.assignedLocation.id,
    assignedLocationName: fo.assignedLocation.name,
    fulfillmentService: fo.assignedLocation.fulfillmentService,
    heldOnPlatform: fo.holds.length > 0,
    deliveryMethodType: fo.deliveryMethodType,
    goodsValueHundredths: fo.lineItems.reduce((sum, l) => sum + toHundredths(l.totalAfterDiscounts.amount), 0),
    weightGrams: weights.some((w) => w === null) ? null : weights.reduce<number>((s, w) => s + w!, 0),
    replacedBy: fo.replacedBy,
  };
}

/** The carrier account fields the context reads. */
type AccountFields = Pick<
  CarrierAccount,
  | 'id'
  | 'carrierCode'
  | 'currency'
  | 'apiCreation'
  | 'services'
  | 'options'
  | 'declaredValueSupported'
  | 'codRoundingByCurrency'
  | 'defaultFulfillment'
  | 'sender'
  | 'createdAt'
  | 'updatedAt'
>;

function contextAccount(a: AccountFields): ContextCarrierAccount {
  return {
    id: a.id,
    carrierCode: a.carrierCode,
    currency: a.currency,
    apiCreation: a.apiCreation,
    services: a.services.map((s) => ({
      code: s.code,
      name: s.name,
      codSupported: s.codSupported,
      pickupPointRequired: s.pickupPointRequired,
    })),
    options: Object.fromEntries(
      Object.entries(a.options).map(([key, o]) => [key, { type: o.type, default: o.default }]),
    ),
    declaredValueSupported: a.declaredValueSupported,
    codRoundingByCurrency: a.codRoundingByCurrency,
    defaultFulfillment: a.defaultFulfillment,
    sender: { name: a.sender.name, countryCode: a.sender.countryCode ?? null, iban: a.sender.iban ?? null },
    createdAtMs: a.createdAt.getTime(),
    updatedAtMs: a.updatedAt.getTime(),
  };
}

function contextRule(
  r: Pick<CarrierRule, 'id' | 'priority' | 'conditions' | 'carrierAccountId' | 'serviceCode'>,
): ContextRule {
  return {
    id: r.id,
    priority: r.priority,
    conditions: r.conditions,
    carrierAccountId: r.carrierAccountId,
    serviceCode: r.serviceCode,
  };
}

/** A current outbound label as the context statement returns it (JSON: timestamps as text, amounts as numbers). */
interface LabelRow {
  id: string;
  status: LabelStatus;
  kind: LabelKind;
  source: LabelSource | null;
  coverage_known: boolean;
  current_set: CurrentSet;
  created_at: string;
  carrier_code: string;
  carrier_account_id: string | null;
  service_code: string | null;
  cod_amount: number | null;
  cod_currency: string | null;
  cod_source: CodSource | null;
  declared_value_amount: number | null;
  declared_value_currency: string | null;
  parcels: Array<{ weightGrams: number | null }>;
  label_creation_id: string | null;
  fos: string[];
}

interface CreationRowJson {
  id: string;
  status: ContextCreation['status'];
  fulfillment_order_gids: string[];
  created_at: string;
}

/**
 * Everything the decision reads from the database about an order, in one statement and so one snapshot: its current
 * outbound labels with their coverage (the only labels that can block a new one), the creations that still matter
 * (running, needing attention, abandoned until deleted), the live locks on its fulfillment orders, and for a live
 * creation the order's label state (`order_label_state`) that its locks are taken against. Read in the same snapshot
 * as the labels and creations, that state cannot include a label the decision did not see.
 */
const ORDER_STATE_SQL = numberedPlaceholders(`select
  (select coalesce(json_agg(t order by t.created_at, t.seq), '[]') from (
     select l.id, l.status, l.kind, l.source, l.coverage_known, l.current_set, l.created_at, l.seq, l.carrier_code,
            l.carrier_account_id, l.service_code, l.cod_amount, l.cod_currency, l.cod_source,
            l.declared_value_amount, l.declared_value_currency, l.parcels, l.label_creation_id,
            coalesce(array_agg(f.fulfillment_order_gid order by f.fulfillment_order_gid)
                     filter (where f.fulfillment_order_gid is not null), '{}') as fos
       from labels l left join label_fulfillment_orders f on f.label_id = l.id
      where l.store_id = ? and l.order_gid = ? and l.direction = 'outbound' and l.current
      group by l.id) t) as labels,
  (select coalesce(json_agg(t order by t.created_at, t.seq), '[]') from (
     select id, status, fulfillment_order_gids, created_at, seq from label_creations
      where store_id = ? and status in ('processing', 'needs_attention', 'abandoned')
        and (order_gid = ? or fulfillment_order_gids && ?::text[])) t) as creations,
  ${LIVE_LOCKS_JSON} as locks,
  case when ?::boolean then order_label_state(?, ?, ?) end as order_state`);

async function readOrderState(
  em: EntityManager,
  input: { storeId: string; orderGid: string; fulfillmentOrderGids: string[]; staleAfterMs: number },
  selfCreationId: string | null,
) {
  // Prepared: every creation and dry run reads it (twice for a creation: on arrival and in its worker).
  const [row] = await runPrepared<{
    labels: LabelRow[];
    creations: CreationRowJson[];
    locks: LockHolder[];
    order_state: string | null;
  }>(em, ORDER_STATE_SQL, [
    input.storeId,
    input.orderGid,
    input.storeId,
    input.orderGid,
    input.fulfillmentOrderGids,
    ...liveLocksValues({
      storeId: input.storeId,
      fulfillmentOrderGids: input.fulfillmentOrderGids,
      staleAfterMs: input.staleAfterMs,
    }),
    selfCreationId !== null,
    input.storeId,
    input.orderGid,
    selfCreationId ?? '',
  ]);
  return {
    labels: row!.labels.map(contextLabel),
    creations: row!.creations.map((r): ContextCreation => ({
      id: r.id,
      status: r.status,
      fulfillmentOrderIds: r.fulfillment_order_gids,
      createdAtMs: new Date(r.created_at).getTime(),
    })),
    locks: row!.locks,
    orderState: row!.order_state,
  };
}

function contextLabel(r: LabelRow): ContextLabel {
  return {
    id: r.id,
    status: r.status,
    kind: r.kind,
    source: r.source,
    fulfillmentOrderIds: r.fos,
    coverageKnown: r.coverage_known,
    currentSet: r.current_set,
    createdAtMs: new Date(r.created_at).getTime(),
    carrierCode: r.carrier_code,
    carrierAccountId: r.carrier_account_id,
    serviceCode: r.service_code,
    cod:
      r.cod_amount !== null && r.cod_currency !== null && r.cod_source !== null
        ? { amount: Number(r.cod_amount).toFixed(2), currency: r.cod_currency, source: r.cod_source }
        : null,
    declaredValue:
      r.declared_value_amount !== null && r.declared_value_currency !== null
        ? { amount: Number(r.declared_value_amount).toFixed(2), currency: r.declared_value_currency }
        : null,
    weightGrams: r.parcels[0]?.weightGrams ?? null,
    labelCreationId: r.label_creation_id,
  };
}

/**
 * The store's domain, COD setting, carrier accounts (oldest first) and rules (by priority) in one statement, as the
 * context reads them: every creation and dry run reads them, and the ORM's four reads and hydration cost more.
 */
async function storeSetup(em: EntityManager, storeId: string) {
  const [row] = await runPrepared<{
    id: string;
    domain: string;
    settings: Pick<StoreSettings, 'codRuleEnabled' | 'codRule'> | null;
    accounts: Array<Omit<AccountFields, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string }>;
    rules: Array<Pick<CarrierRule, 'id' | 'priority' | 'conditions' | 'carrierAccountId' | 'serviceCode'>>;
  }>(
    em,
    `select s.id, s.domain,
            (select json_build_object('codRuleEnabled', t.cod_rule_enabled, 'codRule', t.cod_rule)
               from store_settings t where t.store_id = s.id) as settings,
            coalesce((select json_agg(json_build_object(
                        'id', a.id, 'carrierCode', a.carrier_code, 'currency', a.currency,
                        'apiCreation', a.api_creation, 'services', a.services, 'options', a.options,
                        'declaredValueSupported', a.declared_value_supported,
                        'codRoundingByCurrency', a.cod_rounding_by_currency,
                        'defaultFulfillment', a.default_fulfillment, 'sender', a.sender, 'createdAt', a.created_at,
                        'updatedAt', a.updated_at)
                        order by a.created_at, a.seq)
                        from carrier_accounts a where a.store_id = s.id), '[]') as accounts,
            coalesce((select json_agg(json_build_object(
                        'id', r.id, 'priority', r.priority, 'conditions', r.conditions,
                        'carrierAccountId', r.carrier_account_id, 'serviceCode', r.service_code)
                        order by r.priority)
                        from carrier_rules r where r.store_id = s.id), '[]') as rules
       from stores s where s.id = $1`,
    [storeId],
  );
  if (!row) throw new Error(`store ${storeId} does not exist`);
  return {
    store: { id: row.id, domain: row.domain },
    settings: row.settings,
    accounts: row.accounts.map((a) => ({ ...a, createdAt: new Date(a.createdAt), updatedAt: new Date(a.updatedAt) })),
    rules: row.rules,
  };
}

/**
 * The one loader of the creation context (`src/domain/creation-context.ts`): the order and its fulfillment orders
 * from the store platform, the store's carrier accounts, rules and COD setting, the order's current labels and open
 * creations, and who holds its fulfillment orders. The dry run calls it; so does the creation workflow's preparing
 * activity, which also gets the order's label state its locks are taken against (`orderState`; '' when there is no
 * order). Platform failures become `shopify_unavailable`.
 */
export async function loadCreationContext(deps: LoadContextDeps, input: LoadContextInput): Promise<CreationContext> {
  return (await loadCreationSnapshot(deps, input)).context;
}

/**
 * The order as the request names it, from the store platform: by ID with its fulfillment orders, in one read. An ID
 * not found names the store's platform (`storePlatform`, read only then).
 */
async function readOrder(
  platform: LoadContextDeps['platform'],
  where: { domain: string; storePlatform: () => Promise<'sandbox' | 'shopify'> },
  wanted: CreationRequest['order'],
): Promise<{ lookup: OrderLookup; platformOrder: PlatformOrder | null; listed: PlatformFulfillmentOrder[] | null }> {
  const { domain } = where;
  if (wanted.by === 'id') {
    const found = await readFromPlatform('order', () => platform.getOrderWithFulfillmentOrders(domain, wanted.id));
    const platformOrder = found?.order ?? null;
    return {
      platformOrder,
      listed: found?.fulfillmentOrders ?? null,
      lookup: platformOrder
        ? { kind: 'found', order: contextOrder(platformOrder) }
        : { kind: 'not_found', by: 'id', value: wanted.id, platform: await where.storePlatform() },
    };
  }
  const matches = await readFromPlatform('order', () => platform.findOrdersByName(domain, wanted.name));
  const platformOrder = matches.length === 1 ? matches[0]! : null;
  return {
    platformOrder,
    listed: null,
    lookup:
      matches.length === 0
        ? { kind: 'not_found', by: 'name', value: wanted.name }
        : matches.length > 1
          ? { kind: 'ambiguous', name: wanted.name, matches: matches.length }
          : { kind: 'found', order: contextOrder(platformOrder!) },
  };
}

/**
 * A store's platform domain never changes: each process keeps the ones its store setups read (bounded), so the next
 * read of the order starts beside the store setup instead of after it.
 */
const storeDomains = new Map<string, string>();
const STORE_DOMAINS_KEPT = 10_000;

export async function loadCreationSnapshot(
  deps: LoadContextDeps,
  input: LoadContextInput,
): Promise<{ context: CreationContext; orderState: string }> {
  const { em } = deps;
  const setup = storeSetup(em, input.storeId).then((read) => {
    if (storeDomains.size >= STORE_DOMAINS_KEPT) storeDomains.clear();
    storeDomains.set(read.store.id, read.store.domain);
    return read;
  });
  const storePlatform = async () => (await sessionInfo(em, input.storeId)).platform;
  const known = storeDomains.get(input.storeId);
  const order = known
    ? readOrder(deps.platform, { domain: known, storePlatform }, input.request.order)
    : setup.then((read) => readOrder(deps.platform, { domain: read.store.domain, storePlatform }, input.request.order));
  const [{ store, settings, accounts, rules }, { lookup, platformOrder, listed }] = await Promise.all([setup, order]);
  const base = {
    store: {
      id: store.id,
      domain: store.domain,
      codRule: settings?.codRuleEnabled && settings.codRule ? { amountSource: settings.codRule.amountSource } : null,
    },
    carrierAccounts: accounts.map(contextAccount),
    rules: rules.map(contextRule),
    selfCreationId: input.selfCreationId ?? null,
  };
  const empty = { fulfillmentOrders: [], labels: [], creations: [], holders: [] };
  if (!platformOrder) return { context: { ...base, orderLookup: lookup, ...empty }, orderState: '' };

  const fulfillmentOrders =
    listed ??
    (await fromPlatform('fulfillment_orders', () =>
      deps.platform.listFulfillmentOrders(store.domain, platformOrder.id),
    ));
  const { labels, creations, locks, orderState } = await readOrderState(
    em,
    {
      storeId: store.id,
      orderGid: platformOrder.id,
      fulfillmentOrderGids: fulfillmentOrders.map((fo) => fo.id),
      staleAfterMs: input.lockStaleAfterMs ?? LOCK_STALE_AFTER_MS,
    },
    input.selfCreationId ?? null,
  );
  return {
    context: {
      ...base,
      orderLookup: lookup,
      fulfillmentOrders: fulfillmentOrders.map(contextFulfillmentOrder),
      labels,
      creations,
      holders: holdersOf(fulfillmentOrders, locks),
    },
    orderState: orderState ?? '',
  };
}
