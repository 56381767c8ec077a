import type { EntityManager } from '@mikro-orm/core';
import { newId } from '../ids';
import { openHeaders, sealHeaders, SealedHeadersError } from './header-vault';
import type { ProviderHeader } from './provider-client';
import { ProviderConfigError } from './provider-config';
import type { ProviderRecord } from './provider-search';
import { PickupPointProvider } from '../db/entities/pickup-point-provider';

/** A store's custom pickup point providers; headers are sealed on write and opened only to call or to mask. */
export interface NewProvider {
  storeId: string;
  code: string;
  name: string;
  url: string;
  headers: ProviderHeader[];
}

export interface ProviderChanges {
  name?: string;
  url?: string;
  /** Added, or replacing a header of the same name (case-insensitive). */
  setHeaders?: ProviderHeader[];
  removeHeaders?: string[];
  enabled?: boolean;
}

export async function addProvider(
  em: EntityManager,
  key: Buffer,
  input: NewProvider,
  now: Date,
): Promise<PickupPointProvider> {
  if (await em.findOne(PickupPointProvider, { storeId: input.storeId, code: input.code }))
    throw new ProviderConfigError(`the store already has a provider ${input.code}`);
  const id = newId('pickupPointProvider');
  const provider = em.create(PickupPointProvider, {
    id,
    storeId: input.storeId,
    code: input.code,
    name: input.name,
    url: input.url,
    headersSealed: sealHeaders(key, id, input.headers),
    enabled: true,
    createdAt: now,
    updatedAt: now,
  });
  await em.flush();
  return provider;
}

export async function findProvider(em: EntityManager, storeId: string, code: string): Promise<PickupPointProvider> {
  const provider = await em.findOne(PickupPointProvider, { storeId, code });
  if (!provider) throw new ProviderConfigError(`the store has no provider ${code}`);
  return provider;
}

export async function listProviders(em: EntityManager, storeId: string): Promise<PickupPointProvider[]> {
  return em.find(PickupPointProvider, { storeId }, { orderBy: { createdAt: 'asc', seq: 'asc' } });
}

export function providerHeaders(key: Buffer, provider: PickupPointProvider): ProviderHeader[] {
  return openHeaders(key, provider.id, provider.headersSealed);
}

/** Header changes applied to the current list; `checkHeaders` runs on the result. */
export function changedHeaders(current: readonly ProviderHeader[], changes: ProviderChanges): ProviderHeader[] {
  const removed = new Set((changes.removeHeaders ?? []).map((n) => n.toLowerCase()));
  const replaced = new Set((changes.setHeaders ?? []).map((h) => h.name.toLowerCase()));
  const missing = [...removed].filter((n) => !current.some((h) => h.name.toLowerCase() === n));
  if (missing.length > 0) throw new ProviderConfigError(`no header ${missing.join(', ')} to remove`);
  return [
    ...current.filter((h) => !removed.has(h.name.toLowerCase()) && !replaced.has(h.name.toLowerCase())),
    ...(changes.setHeaders ?? []),
  ];
}

export async function updateProvider(
  em: EntityManager,
  key: Buffer,
  provider: PickupPointProvider,
  changes: ProviderChanges & { headers?: ProviderHeader[] },
  now: Date,
): Promise<PickupPointProvider> {
  em.assign(provider, {
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.url !== undefined ? { url: changes.url } : {}),
    ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
    ...(changes.headers ? { headersSealed: sealHeaders(key, provider.id, changes.headers) } : {}),
    updatedAt: now,
  });
  await em.flush();
  return provider;
}

export async function removeProvider(em: EntityManager, provider: PickupPointProvider): Promise<void> {
  await em.removeAndFlush(provider);
}

export function toProviderRecord(key: Buffer, provider: PickupPointProvider): ProviderRecord {
  return {
    id: provider.id,
    storeId: provider.storeId,
    code: provider.code,
    name: provider.name,
    url: provider.url,
    headers: providerHeaders(key, provider),
    updatedAt: provider.updatedAt,
  };
}

/**
 * The enabled providers of a store, ready to call. One whose headers no longer open (the key changed) is left out and
 * reported, so the store's other networks keep working.
 */
export async function enabledProviderRecords(
  em: EntityManager,
  key: Buffer,
  storeId: string,
  onUnreadable: (error: SealedHeadersError) => void,
): Promise<ProviderRecord[]> {
  const providers = await em.find(
    PickupPointProvider,
    { storeId, enabled: true },
    { orderBy: { createdAt: 'asc', seq: 'asc' } },
  );
  const records: ProviderRecord[] = [];
  for (const provider of providers) {
    try {
      records.push(toProviderRecord(key, provider));
    } catch (error) {
      if (!(error instanceof SealedHeadersError)) throw error;
      onUnreadable(error);
    }
  }
  return records;
}
