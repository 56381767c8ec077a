import type { EntityManager } from '@mikro-orm/postgresql';
import { readLabelViews } from '../../db/labels-query';
import type { Orm } from '../../db/orm';
import { listProviders } from '../../pickup-points/providers-repository';
import { customNetworkCode } from '../../domain/pickup-points';
import { baseUrl } from '../../http/middleware';
import { defineRoute } from '../../http/route';
import type { AppContext } from '../../http/state';
import { findHolders } from '../../locks/holders';
import { readOrder, type OrderSnapshot } from '../../orders/order-reader';
import { assignPickupPoint } from '../../orders/pickup-point-assignment';
import { listOrderPickupPoints } from '../../orders/pickup-point-listing';
import type { StorePlatformPort } from '../../platform/port';
import type { PickupPointSources } from '../../pickup-points/search';
import { orderParamsSchema } from '../documents/schemas';
import {
  listPickupPointsQuerySchema,
  orderSchema,
  pickupPointListSchema,
  setPickupPointBodySchema,
  type OrderWire,
} from './schemas';
import { serializeOrder, serializePickupPointList } from './serializer';

export interface OrderRoutesDeps {
  orm: Orm;
  now: () => Date;
  platform: Pick<StorePlatformPort, 'getOrder' | 'getOrderWithFulfillmentOrders' | 'setOrderPickupPoint'>;
  pickupPoints: PickupPointSources;
  settingsKey: Buffer;
  publicBaseUrl: string | undefined;
}

async function orderBody(
  ctx: AppContext,
  deps: OrderRoutesDeps,
  em: EntityManager,
  snapshot: OrderSnapshot,
): Promise<OrderWire> {
  const storeId = ctx.state.auth!.storeId;
  const [labelViews, holders, providers] = await Promise.all([
    readLabelViews(
      em,
      storeId,
      snapshot.labels.map((l) => l.id),
    ),
    findHolders(em, { storeId, fulfillmentOrders: snapshot.fulfillmentOrders }),
    listProviders(em, storeId),
  ]);
  return serializeOrder(snapshot, {
    labelViews,
    holders,
    networkNames: new Map(providers.map((p) => [customNetworkCode(p.code), p.name])),
    baseUrl: baseUrl(ctx, deps.publicBaseUrl),
    now: deps.now(),
  });
}

export function createOrderRoutes(deps: OrderRoutesDeps) {
  return [
    defineRoute({
      method: 'GET',
      path: '/orders/{order_id}',
      operationId: 'getOrder',
      summary: "An order's pickup point, reminders, delivery status, COD facts and labels",
      description:
        'The order is read from the store platform at request time; its labels come from this API. `cod` shows the ' +
        'facts the COD decision of `POST /labels` reads, not a decision.',
      tag: 'Orders',
      access: { kind: 'key', scope: 'orders:read' },
      limits: 'read',
      params: orderParamsSchema,
      responses: { 200: { description: 'The order', schema: orderSchema } },
      errors: ['shopify_unavailable'],
      handler: async (ctx, { params }) => {
        const em = deps.orm.em.fork();
        const snapshot = await readOrder(em, deps.platform, ctx.state.auth!.storeId, params.order_id);
        ctx.body = await orderBody(ctx, deps, em, snapshot);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/orders/{order_id}/pickup-points',
      operationId: 'listOrderPickupPoints',
      summary: 'Nearest pickup points for the order',
      description:
        "Searches every network the order's delivery method allows (the carriers of the store's rules for it and " +
        "the store's custom providers) around the geocoded shipping address, and merges them nearest first. A " +
        'network that does not answer is listed in `sources` as `unavailable`; when none answers: 503 ' +
        '`carrier_unavailable`.',
      tag: 'Orders',
      access: { kind: 'key', scope: 'pickup_points:read' },
      limits: 'read',
      params: orderParamsSchema,
      query: listPickupPointsQuerySchema,
      responses: { 200: { description: 'The nearest pickup points', schema: pickupPointListSchema } },
      errors: ['order_not_eligible', 'shopify_unavailable', 'carrier_unavailable'],
      handler: async (ctx, { params, query }) => {
        const listing = await listOrderPickupPoints(
          {
            em: deps.orm.em.fork(),
            platform: deps.platform,
            sources: deps.pickupPoints,
            settingsKey: deps.settingsKey,
          },
          {
            storeId: ctx.state.auth!.storeId,
            orderRef: params.order_id,
            limit: query.limit,
            ...(query.carrier ? { carriers: query.carrier } : {}),
            ...(query.latitude !== undefined && query.longitude !== undefined
              ? { location: { latitude: query.latitude, longitude: query.longitude } }
              : {}),
            ...(query.country_code ? { countryCode: query.country_code } : {}),
          },
        );
        ctx.body = serializePickupPointList(listing);
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/orders/{order_id}/pickup-point',
      operationId: 'setOrderPickupPoint',
      summary: "Set or change the order's pickup point",
      description:
        'Only on an order without labels, not fulfilled, with a pickup-point delivery method, while no label ' +
        'creation or export holds its fulfillment orders. The point must be one of the networks the delivery method ' +
        "allows and among the 50 nearest to the shipping address. It is written to the store platform's order, " +
        'where the next label creation reads it. Repeating the same request is harmless.',
      tag: 'Orders',
      // Not a write endpoint in the store gates' sense: spec "Authentication" 6 names those (decision 0132).
      access: { kind: 'key', scope: 'pickup_points:assign' },
      limits: 'pickup_point',
      params: orderParamsSchema,
      body: setPickupPointBodySchema,
      requestExample: { carrier: 'carrier_a', pickup_point_id: '1001' },
      responses: { 200: { description: 'The order with its new pickup point', schema: orderSchema } },
      errors: [
        'label_exists',
        'creation_in_progress',
        'order_not_eligible',
        'pickup_point_not_available',
        'shopify_unavailable',
        'carrier_unavailable',
      ],
      handler: async (ctx, { params, body }) => {
        const em = deps.orm.em.fork();
        const snapshot = await assignPickupPoint(
          { em, platform: deps.platform, sources: deps.pickupPoints, settingsKey: deps.settingsKey },
          {
            storeId: ctx.state.auth!.storeId,
            orderRef: params.order_id,
            carrier: body.carrier,
            pickupPointId: body.pickup_point_id,
            customerId: body.customer_id,
          },
        );
        ctx.body = await orderBody(ctx, deps, em, snapshot);
      },
    }),
  ];
}
