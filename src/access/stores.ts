import type { EntityManager } from '@mikro-orm/core';
import { Store } from '../db/entities/store';
import { newId } from '../ids';

/** A store's gates (spec "Authentication" 6): what lets its requests through. */
export interface StoreGates {
  appInstalled: boolean;
  apiEnabled: boolean;
  pausedBySupport: boolean;
  subscriptionActive: boolean;
  freeAccess: boolean;
  writeAccess: boolean;
}

export type NewStore = { name: string; domain: string; email: string; id?: string } & Partial<StoreGates>;

/** A new store starts installed with every other gate closed; support and the merchant open them. */
export async function createStore(em: EntityManager, input: NewStore, now: Date): Promise<Store> {
  const store = em.create(Store, {
    id: input.id ?? newId('store'),
    name: input.name,
    domain: input.domain,
    email: input.email,
    appInstalled: input.appInstalled ?? true,
    apiEnabled: input.apiEnabled ?? false,
    pausedBySupport: input.pausedBySupport ?? false,
    subscriptionActive: input.subscriptionActive ?? false,
    freeAccess: input.freeAccess ?? false,
    writeAccess: input.writeAccess ?? false,
    createdAt: now,
    updatedAt: now,
  });
  await em.flush();
  return store;
}

export async function setStoreGates(
  em: EntityManager,
  storeId: string,
  gates: Partial<StoreGates>,
  now: Date,
): Promise<Store> {
  const store = await em.findOneOrFail(Store, { id: storeId });
  em.assign(store, { ...gates, updatedAt: now });
  await em.flush();
  return store;
}
