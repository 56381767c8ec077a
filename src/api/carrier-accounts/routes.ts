import { CarrierAccount } from '../../db/entities/carrier-account';
import type { Orm } from '../../db/orm';
import { hasPrefix } from '../../ids';
import { ApiError } from '../../http/api-error';
import { defineRoute } from '../../http/route';
import {
  carrierAccountListSchema,
  carrierAccountParamsSchema,
  carrierAccountSchema,
  listCarrierAccountsQuerySchema,
} from './schemas';
import { serializeCarrierAccount } from './serializer';

export function createCarrierAccountRoutes(deps: { orm: Orm }) {
  return [
    defineRoute({
      method: 'GET',
      path: '/carrier-accounts',
      operationId: 'listCarrierAccounts',
      summary: 'The store’s carrier accounts with their services, options and COD rounding',
      description:
        'Every carrier account of the store, oldest first, in one answer (a store has a handful; the list is not paged).',
      tag: 'Carrier accounts',
      access: { kind: 'key', scope: 'carriers:read' },
      limits: 'read',
      query: listCarrierAccountsQuerySchema,
      responses: { 200: { description: 'The carrier accounts', schema: carrierAccountListSchema } },
      handler: async (ctx, { query }) => {
        const accounts = await deps.orm.em.fork().find(
          CarrierAccount,
          {
            storeId: ctx.state.auth!.storeId,
            ...(query.carrier !== undefined ? { carrierCode: query.carrier } : {}),
            ...(query.api_creation !== undefined ? { apiCreation: query.api_creation } : {}),
          },
          { orderBy: { createdAt: 'asc', seq: 'asc' } },
        );
        ctx.body = { data: accounts.map(serializeCarrierAccount) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/carrier-accounts/{carrier_account_id}',
      operationId: 'getCarrierAccount',
      summary: 'One carrier account',
      tag: 'Carrier accounts',
      access: { kind: 'key', scope: 'carriers:read' },
      limits: 'read',
      params: carrierAccountParamsSchema,
      responses: { 200: { description: 'The carrier account', schema: carrierAccountSchema } },
      handler: async (ctx, { params }) => {
        // Another store's ID, a malformed and an unknown one answer alike (spec "Identifiers").
        if (!hasPrefix('carrierAccount', params.carrier_account_id)) throw new ApiError('not_found');
        const account = await deps.orm.em
          .fork()
          .findOne(CarrierAccount, { id: params.carrier_account_id, storeId: ctx.state.auth!.storeId });
        if (!account) throw new ApiError('not_found');
        ctx.body = serializeCarrierAccount(account);
      },
    }),
  ];
}
