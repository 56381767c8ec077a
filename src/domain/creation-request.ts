import type { Money } from './money';
import { fromHundredths, toHundredths } from './cod-rounding';
import type { FulfillmentRequest, OnExisting } from './labels';
import { orderNameKey, parseFulfillmentOrderId, parseOrderId } from './platform-ids';

export type CarrierOptionValue = string | number | boolean;

/**
 * The `POST /labels` body as the request schema (`src/api/labels/create-schema.ts`) hands it over: shapes and ranges
 * checked, nothing filled in. `null` is accepted wherever the field is optional, so `requested` (which shows every
 * field) can be sent again as a body.
 */
export interface CreationRequestBody {
  order_id?: string | null;
  order_name?: string | null;
  fulfillment_order_ids?: string[] | null;
  all_locations?: boolean;
  carrier_account_id?: string | null;
  service_code?: string | null;
  parcels?: Array<{ weight_grams: number }> | null;
  cod?: Money | null;
  declared_value?: Money | null;
  carrier_options?: Record<string, CarrierOptionValue>;
  fulfillment?: FulfillmentRequest;
  on_existing?: OnExisting;
  replaces?: string[];
  include?: Array<'document'>;
  client_reference?: string | null;
  dry_run?: boolean;
}

/**
 * The normalized request: the form idempotency compares (spec `POST /labels`, "Bodies are compared after
 * normalization"), the `requested` echo, and what every decision reads. Order and fulfillment order IDs are GIDs,
 * `order_name` is its lookup key (no `#`, lowercased), amounts have two decimals, defaults are filled, `replaces`
 * and `include` are sorted sets, `carrier_options` keys are sorted. Values the caller left to derivation are null.
 */
export interface CreationRequest {
  order: { by: 'id'; id: string } | { by: 'name'; name: string };
  fulfillmentOrderIds: string[] | null;
  allLocations: boolean;
  carrierAccountId: string | null;
  serviceCode: string | null;
  parcels: Array<{ weightGrams: number }> | null;
  cod: Money | null;
  declaredValue: Money | null;
  carrierOptions: Record<string, CarrierOptionValue>;
  fulfillment: FulfillmentRequest;
  onExisting: OnExisting;
  replaces: string[];
  include: Array<'document'>;
  clientReference: string | null;
  dryRun: boolean;
}

const normalizeMoney = (m: Money | null | undefined): Money | null =>
  m ? { amount: fromHundredths(toHundredths(m.amount)), currency: m.currency } : null;

const sortedSet = <T extends string>(values: readonly T[] | undefined): T[] => [...new Set(values ?? [])].sort();

function sortedKeys<V>(record: Readonly<Record<string, V>> | undefined): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of Object.keys(record ?? {}).sort()) out[key] = record![key]!;
  return out;
}

/**
 * Normalizes a request body the schema accepted. Throws only on input the schema refuses (a malformed ID or amount):
 * that is a programming error, never a client's.
 */
export function normalizeCreationRequest(body: CreationRequestBody): CreationRequest {
  let order: CreationRequest['order'];
  if (body.order_id !== undefined && body.order_id !== null) {
    const id = parseOrderId(body.order_id);
    if (!id) throw new Error(`order_id ${body.order_id} passed the schema but is no order ID`);
    order = { by: 'id', id: id.gid };
  } else if (body.order_name !== undefined && body.order_name !== null) {
    order = { by: 'name', name: orderNameKey(body.order_name) };
  } else {
    throw new Error('order_id or order_name must be given');
  }
  const fulfillmentOrderIds = body.fulfillment_order_ids
    ? sortedSet(
        body.fulfillment_order_ids.map((value) => {
          const id = parseFulfillmentOrderId(value);
          if (!id) throw new Error(`fulfillment order ID ${value} passed the schema but is no ID`);
          return id.gid;
        }),
      )
    : null;
  return {
    order,
    fulfillmentOrderIds,
    allLocations: body.all_locations ?? false,
    carrierAccountId: body.carrier_account_id ?? null,
    serviceCode: body.service_code ?? null,
    parcels: body.parcels ? body.parcels.map((p) => ({ weightGrams: p.weight_grams })) : null,
    cod: normalizeMoney(body.cod),
    declaredValue: normalizeMoney(body.declared_value),
    carrierOptions: sortedKeys(body.carrier_options),
    fulfillment: body.fulfillment ?? 'account_default',
    onExisting: body.on_existing ?? 'return',
    replaces: sortedSet(body.replaces),
    include: sortedSet(body.include),
    clientReference: body.client_reference ?? null,
    dryRun: body.dry_run ?? false,
  };
}

/** The wire form of a normalized request: the creation's `requested` block, and a body that normalizes to itself. */
export interface RequestedWire {
  order_id: string | null;
  order_name: string | null;
  fulfillment_order_ids: string[] | null;
  all_locations: boolean;
  carrier_account_id: string | null;
  service_code: string | null;
  parcels: Array<{ weight_grams: number }> | null;
  cod: Money | null;
  declared_value: Money | null;
  carrier_options: Record<string, CarrierOptionValue>;
  fulfillment: FulfillmentRequest;
  on_existing: OnExisting;
  replaces: string[];
  include: Array<'document'>;
  client_reference: string | null;
  dry_run: boolean;
}

export function requestedWire(request: CreationRequest): RequestedWire {
  return {
    order_id: request.order.by === 'id' ? request.order.id : null,
    order_name: request.order.by === 'name' ? request.order.name : null,
    fulfillment_order_ids: request.fulfillmentOrderIds,
    all_locations: request.allLocations,
    carrier_account_id: request.carrierAccountId,
    service_code: request.serviceCode,
    parcels: request.parcels ? request.parcels.map((p) => ({ weight_grams: p.weightGrams })) : null,
    cod: request.cod,
    declared_value: request.declaredValue,
    carrier_options: request.carrierOptions,
    fulfillment: request.fulfillment,
    on_existing: request.onExisting,
    replaces: request.replaces,
    include: request.include,
    client_reference: request.clientReference,
    dry_run: request.dryRun,
  };
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The text idempotency hashes: the normalized request with sorted keys, without `dry_run` (a dry run binds no key).
 * Two bodies are the same request exactly when their texts are equal.
 */
export function idempotencyFingerprint(request: CreationRequest): string {
  const { dry_run: _dryRun, ...rest } = requestedWire(request);
  return canonicalJson(rest);
}
