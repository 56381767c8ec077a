import type { EntityManager } from '@mikro-orm/postgresql';
import { carrierDefinition } from '../domain/carrier-catalog';
import { newId } from '../ids';
import {
  CarrierAccount,
  type CarrierAccountOption,
  type CarrierAccountService,
  type CarrierCodRoundingSetting,
  type FulfillmentMode,
  type PacketaEndpointSettings,
  type SenderDetails,
} from './entities/carrier-account';

export interface NewCarrierAccount {
  id?: string;
  storeId: string;
  carrierCode: string;
  name?: string;
  currency: string;
  services: CarrierAccountService[];
  options?: Record<string, CarrierAccountOption>;
  /** Defaults to what the carrier catalogue says. */
  declaredValueSupported?: boolean;
  /** Defaults to the carrier catalogue's rounding. */
  codRoundingByCurrency?: Record<string, CarrierCodRoundingSetting>;
  printTag?: string | null;
  labelTag?: string | null;
  apiCreation?: 'enabled' | 'not_enabled';
  defaultFulfillment?: FulfillmentMode;
  sender?: SenderDetails;
  printerType?: string | null;
  /** A carrier A account on Packeta: its settings and its API password, already sealed to the account's ID. */
  packeta?: { settings: PacketaEndpointSettings; apiPasswordSealed: string } | null;
  now: Date;
}

/** Inserts a carrier account; the carrier code must be one of the catalogue's. */
export async function insertCarrierAccount(em: EntityManager, input: NewCarrierAccount): Promise<CarrierAccount> {
  const carrier = carrierDefinition(input.carrierCode);
  const account = em.create(CarrierAccount, {
    id: input.id ?? newId('carrierAccount'),
    storeId: input.storeId,
    carrierCode: carrier.code,
    name: input.name ?? carrier.name,
    currency: input.currency,
    services: input.services,
    options: input.options ?? {},
    declaredValueSupported: input.declaredValueSupported ?? carrier.declaredValueSupported,
    codRoundingByCurrency: input.codRoundingByCurrency ?? { ...carrier.codRounding },
    printTag: input.printTag ?? null,
    labelTag: input.labelTag ?? null,
    apiCreation: input.apiCreation ?? 'enabled',
    defaultFulfillment: input.defaultFulfillment ?? 'none',
    sender: input.sender ?? { name: 'Sender' },
    printerType: input.printerType ?? null,
    endpoint: input.packeta ? 'packeta' : 'sandbox',
    endpointSettings: input.packeta?.settings ?? null,
    apiPasswordSealed: input.packeta?.apiPasswordSealed ?? null,
    createdAt: input.now,
    updatedAt: input.now,
  });
  await em.flush();
  return account;
}
