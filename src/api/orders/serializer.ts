import { CARRIERS } from '../../domain/carrier-catalog';
import type { LabelView } from '../../db/labels-query';
import { deliveryStatus, orderReminders } from '../../domain/order-status';
import { isPickupPointMethod, type AllowedNetwork } from '../../domain/pickup-points';
import { isoSecondsOrNull, money } from '../../domain/wire-format';
import type { FulfillmentOrderHolder } from '../../domain/holders';
import type { Money } from '../../domain/money';
import { labelFacts, orderFacts, type OrderSnapshot } from '../../orders/order-reader';
import type { PickupPointListing } from '../../orders/pickup-point-listing';
import type { NetworkPoint } from '../../pickup-points/search';
import { serializeLabel } from '../labels/serializer';
import type { OrderWire, PickupPointListWire, PickupPointWire } from './schemas';

const moneyWire = (m: Money) => ({ amount: money(m.amount), currency: m.currency });

/** Metafields arrive as `namespace.key` from the platform port; the spec writes `namespace/key`. Either is read. */
function metafield(metafields: Record<string, string>, namespace: string, key: string): string | null {
  return metafields[`${namespace}/${key}`] ?? metafields[`${namespace}.${key}`] ?? null;
}

const networkWire = (network: AllowedNetwork) => ({
  code: network.code,
  name: network.name,
  account_id: network.accountId,
});

export function serializePickupPoint({ network, point, distanceMeters }: NetworkPoint): PickupPointWire {
  return {
    id: point.id,
    carrier: networkWire(network),
    type: point.type,
    name: point.name,
    place: point.place,
    street: point.street,
    city: point.city,
    zip: point.zip,
    country: point.country,
    latitude: point.latitude,
    longitude: point.longitude,
    distance_meters: distanceMeters,
    pin_url: point.pinUrl,
    opening_hours: point.openingHours,
    requires_customer_id: point.requiresCustomerId,
  };
}

export function serializePickupPointList(listing: PickupPointListing): PickupPointListWire {
  return {
    data: listing.points.map(serializePickupPoint),
    search: {
      latitude: listing.location.latitude,
      longitude: listing.location.longitude,
      country_code: listing.location.countryCode,
      source: listing.location.source,
    },
    sources: listing.searches.map((s) => ({
      carrier: networkWire(s.network),
      status: s.status,
      failure: s.failure,
      points_found: s.points.length,
    })),
  };
}

/**
 * The order object (decision 0203): pickup point, delivery status with the fulfillment orders and who holds them,
 * reminders, the COD facts (not a COD decision), and every label through the one label serializer.
 */
export function serializeOrder(
  snapshot: OrderSnapshot,
  extra: {
    labelViews: LabelView[];
    holders: FulfillmentOrderHolder[];
    /** Names of the store's custom providers by `custom:<code>`. */
    networkNames: ReadonlyMap<string, string>;
    baseUrl: string;
    now: Date;
  },
): OrderWire {
  const { order } = snapshot;
  const facts = orderFacts(snapshot);
  const labels = labelFacts(snapshot.labels);
  const point = order.deliveryMethod.pickupPoint;
  const pointCarrier = point?.carrierCode ?? null;
  return {
    id: order.id,
    legacy_id: order.legacyId,
    name: order.name,
    currency: order.currency,
    cancelled_at: isoSecondsOrNull(order.cancelledAt ? new Date(order.cancelledAt) : null),
    delivery_method: {
      type: order.deliveryMethod.type,
      title: order.deliveryMethod.title,
      pickup_point_method: isPickupPointMethod(order.deliveryMethod),
    },
    pickup_point: point
      ? {
          id: point.id,
          carrier: {
            code: pointCarrier,
            name: pointCarrier ? (CARRIERS[pointCarrier]?.name ?? extra.networkNames.get(pointCarrier) ?? null) : null,
          },
          name: point.name,
          country: point.country,
          customer_id_set: Boolean(point.customerId),
        }
      : null,
    delivery: {
      status: deliveryStatus(facts, labels),
      shipping_country: order.shippingAddress?.country ?? null,
      fulfillment_orders: snapshot.fulfillmentOrders.map((fo) => {
        const holder = extra.holders.find((h) => h.fulfillmentOrderGid === fo.id) ?? null;
        return {
          id: fo.id,
          legacy_id: fo.legacyId,
          status: fo.status,
          delivery_method_type: fo.deliveryMethodType,
          assigned_location_name: fo.assignedLocation.name,
          held_by: holder?.heldBy ?? null,
          label_creation_id: holder?.labelCreationId ?? null,
        };
      }),
    },
    reminders: orderReminders(facts, labels).map((r) => ({ code: r.code, label_ids: r.labelIds })),
    cod: {
      payment_gateways: order.paymentGateways,
      cod_value_metafield: metafield(order.metafields, 'service', 'cod_value'),
      currency_metafield: metafield(order.metafields, 'service', 'currency'),
      order_currency: order.currency,
      total_price: moneyWire(order.totalPrice),
      total_outstanding: moneyWire(order.totalOutstanding),
    },
    labels: extra.labelViews.map((view) => serializeLabel(view, { baseUrl: extra.baseUrl, now: extra.now })),
  };
}
