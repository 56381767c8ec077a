import { pickupPointSchema } from '../sandbox/schemas';
import type { OrderInput } from '../sandbox/schemas';

/**
 * Metafield ownership as Shopify has it (docs/shopify.md, "The fake Shopify"; decision 0719): `$app` (or no namespace)
 * is the calling app's reserved namespace, `app--<app id>`, so two apps on one shop (the public app's install and a
 * custom app's token) each see their own; `$app:<name>` is `app--<app id>--<name>`. An app-reserved namespace of
 * another app is readable or writable only as its definition's `admin` access allows (none without a definition);
 * merchant-owned namespaces (`custom`, `shipping_label`, ...) are every app's. The Storefront API, checkout and
 * customer accounts read a metafield only when its definition grants them.
 */

type Order = Omit<OrderInput, 'fulfillment_orders'>;

export type AdminAccess = 'PRIVATE' | 'MERCHANT_READ' | 'MERCHANT_READ_WRITE' | 'PUBLIC_READ' | 'PUBLIC_READ_WRITE';
export type Surface = 'storefront' | 'customer_account';

export interface MetafieldDefinition {
  namespace: string;
  key: string;
  type: string;
  /** The app whose reserved namespace it is; null for a merchant-owned one. */
  ownerApp: string | null;
  admin: AdminAccess;
  storefront: 'NONE' | 'PUBLIC_READ';
  customerAccount: 'NONE' | 'READ' | 'READ_WRITE';
}

/** A shop's metafield definitions on orders, by `namespace.key`. */
export type Definitions = Map<string, MetafieldDefinition>;

/** The pickup point the sandbox's order holds is the one in this metafield (what a checkout put on the order). */
const SHARED_POINT = 'shipping_label.pickup_point';

/** `$app`, `$app:name` or nothing as Shopify resolves them for the calling app; any other namespace as given. */
export function resolveNamespace(namespace: string | null | undefined, appId: string): string {
  if (!namespace || namespace === '$app') return `app--${appId}`;
  if (namespace.startsWith('$app:')) return `app--${appId}--${namespace.slice('$app:'.length)}`;
  return namespace;
}

/** The app whose reserved namespace it is (`app--<app id>[--<name>]`); null for a merchant-owned one. */
const ownerOf = (namespace: string): string | null => /^app--(.+?)(?:--.*)?$/.exec(namespace)?.[1] ?? null;

/** Whether the calling app may read (`write` false) or write a metafield of the namespace and key. */
export function mayAccess(
  definitions: Definitions,
  appId: string,
  namespace: string,
  key: string,
  write: boolean,
): boolean {
  const owner = ownerOf(namespace);
  if (owner === null || owner === appId) return true;
  const admin = definitions.get(`${namespace}.${key}`)?.admin;
  return write ? admin === 'PUBLIC_READ_WRITE' : admin === 'PUBLIC_READ' || admin === 'PUBLIC_READ_WRITE';
}

/** A metafield's stored value on the order (the shared pickup point from the sandbox's order), or undefined. */
export function storedValue(order: Order, namespace: string, key: string): string | undefined {
  const name = `${namespace}.${key}`;
  if (name === SHARED_POINT) {
    const point = order.delivery_method.pickup_point;
    return order.metafields[name] ?? (point ? JSON.stringify(point) : undefined);
  }
  // The sandbox's seeds spell a metafield `namespace.key` or `namespace/key`; on Shopify both are one.
  return order.metafields[name] ?? order.metafields[`${namespace}/${key}`];
}

/**
 * Writes a metafield's value: JSON checked for a `json` one (what a definition of type `json` validates); the shared
 * pickup point becomes the sandbox order's when it is one (a value that is not a point is kept as written and the
 * order has none). Returns an error message, or null.
 */
export function storeValue(order: Order, namespace: string, key: string, type: string, value: string): string | null {
  if (type === 'json') {
    try {
      JSON.parse(value);
    } catch {
      return 'Value is invalid JSON.';
    }
  }
  const name = `${namespace}.${key}`;
  if (name !== SHARED_POINT) {
    order.metafields[name] = value;
    return null;
  }
  const point = pickupPointSchema.safeParse(JSON.parse(value));
  order.delivery_method = { ...order.delivery_method, pickup_point: point.success ? point.data : null };
  if (point.success) delete order.metafields[name];
  else order.metafields[name] = value;
  return null;
}

/** What a surface outside the Admin API (Storefront API and checkout, customer accounts) reads; null when refused. */
export function surfaceValue(
  definitions: Definitions,
  order: Order,
  namespace: string,
  key: string,
  surface: Surface,
): { value: string | null } | null {
  const definition = definitions.get(`${namespace}.${key}`);
  const granted =
    surface === 'storefront'
      ? definition?.storefront === 'PUBLIC_READ'
      : (definition?.customerAccount ?? 'NONE') !== 'NONE';
  return granted ? { value: storedValue(order, namespace, key) ?? null } : null;
}

export interface DefinitionInput {
  name: string;
  namespace: string;
  key: string;
  type: string;
  ownerType: string;
  access?: { admin?: AdminAccess | null; storefront?: 'NONE' | 'PUBLIC_READ' | null; customerAccount?: string | null };
}

/** `metafieldDefinitionCreate` on orders: Shopify's refusals as `{code, message, field}`, else the definition. */
export function createDefinition(
  definitions: Definitions,
  appId: string,
  input: DefinitionInput,
): MetafieldDefinition | { code: string; message: string; field: string[] } {
  if (input.ownerType !== 'ORDER')
    return { code: 'INVALID', message: 'The fake defines orders only.', field: ['ownerType'] };
  const namespace = resolveNamespace(input.namespace, appId);
  const owner = ownerOf(namespace);
  if (owner !== null && owner !== appId)
    return {
      code: 'RESERVED_NAMESPACE_KEY',
      message: 'The namespace is reserved for another app.',
      field: ['namespace'],
    };
  if (owner === null && input.access?.admin)
    return {
      code: 'ADMIN_ACCESS_INPUT_NOT_ALLOWED',
      message: 'Admin access can only be specified for app-owned namespaces.',
      field: ['access', 'admin'],
    };
  const name = `${namespace}.${input.key}`;
  if (definitions.has(name))
    return { code: 'TAKEN', message: 'Key is in use for Order metafields on the namespace.', field: ['key'] };
  const definition: MetafieldDefinition = {
    namespace,
    key: input.key,
    type: input.type,
    ownerApp: owner,
    admin: owner === null ? 'PUBLIC_READ_WRITE' : (input.access?.admin ?? 'MERCHANT_READ'),
    storefront: input.access?.storefront ?? 'NONE',
    customerAccount: (input.access?.customerAccount as MetafieldDefinition['customerAccount'] | undefined) ?? 'NONE',
  };
  definitions.set(name, definition);
  return definition;
}
