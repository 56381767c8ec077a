import {
  defaultFieldResolver,
  getNamedType,
  GraphQLError,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLNamedType,
} from 'graphql';
import { grants } from '../shopify/scopes';
import type { AdminSchema } from './admin-schema';

/**
 * What an app's installation may read on the fake, as Shopify decides it (docs/shopify.md, "The fake Shopify"): the
 * access scopes the merchant granted, and the level of protected customer data Shopify approved for the app (0: none,
 * the Order object itself is refused; 1: no name, address, phone or e-mail fields; 2: all).
 */
export interface AppGrants {
  scopes: readonly string[];
  customerDataLevel: 0 | 1 | 2;
}

export const holdsAny = (granted: AppGrants, anyOf: readonly string[]): boolean =>
  anyOf.some((scope) => grants(granted.scopes, scope));

const ACCESS_DOCS = 'https://shopify.dev/api/usage/access-scopes';
const CUSTOMER_DATA_DOCS = 'https://partners.shopify.com/fake/apps/fake/customer_data';

/** Shopify's answer to a field the scopes do not reach: the field null (up to a nullable parent) and this error. */
export function accessDenied(field: string, requiredAccess?: string): GraphQLError {
  return new GraphQLError(
    requiredAccess
      ? `Access denied for ${field} field. Required access: ${requiredAccess}`
      : `Access denied for ${field} field.`,
    {
      extensions: { code: 'ACCESS_DENIED', documentation: ACCESS_DOCS, ...(requiredAccess ? { requiredAccess } : {}) },
    },
  );
}

/** Protected customer data the app is not approved for; the whole object carries `ACCESS_DENIED`, a field does not. */
function notApproved(object: string, whole: boolean): GraphQLError {
  return new GraphQLError(
    `This app is not approved to access the ${object} object. See ${CUSTOMER_DATA_DOCS} for more details.`,
    whole ? { extensions: { code: 'ACCESS_DENIED', documentation: CUSTOMER_DATA_DOCS } } : {},
  );
}

/** The type a field's value is checked against: a connection's node type, as Shopify checks it at the connection. */
function guardedType(type: GraphQLNamedType): GraphQLNamedType {
  if (!isObjectType(type) || !type.name.endsWith('Connection')) return type;
  const nodes = type.getFields().nodes;
  return nodes ? getNamedType(nodes.type) : type;
}

/**
 * graphql-js's field resolver with Shopify's access rules in front, taken from its own schema: a field's own
 * `requiredAccess`, then its type's (a connection's nodes'), then protected customer data. Anything else resolves as
 * graphql-js would (the fake's views hold values and functions of the arguments).
 */
export function accessFieldResolver(admin: AdminSchema, granted: AppGrants): GraphQLFieldResolver<unknown, unknown> {
  return (source, args, context, info) => {
    const key = `${info.parentType.name}.${info.fieldName}`;
    const own = admin.access.get(key);
    if (own && !holdsAny(granted, own.scopes)) throw accessDenied(info.fieldName, own.text);
    const type = guardedType(getNamedType(info.returnType));
    const ofType = admin.access.get(type.name);
    if (ofType && !holdsAny(granted, ofType.scopes)) throw accessDenied(info.fieldName);
    if (type.name === 'Order' && granted.customerDataLevel === 0) throw notApproved('Order', true);
    if (admin.protectedFields.has(key) && granted.customerDataLevel < 2) throw notApproved(info.parentType.name, false);
    return defaultFieldResolver(source, args, context, info);
  };
}
