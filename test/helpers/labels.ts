import { insertCarrierAccount, type NewCarrierAccount } from '../../src/db/carrier-accounts-repository';
import type { CarrierAccount } from '../../src/db/entities/carrier-account';
import type { Label } from '../../src/db/entities/label';
import { insertLabel, insertLabels, storeLabelDocument, type NewLabel } from '../../src/db/labels-repository';
import type { Orm } from '../../src/db/orm';

let sequence = 0;
/** Numeric platform IDs unique within the test run (each worker has its own module state, so add the pid). */
export function aPlatformId(): string {
  sequence += 1;
  return `${(process.pid % 9000) + 1000}${String(Date.now() % 1_000_000).padStart(6, '0')}${String(sequence).padStart(4, '0')}`;
}

export async function aCarrierAccount(orm: Orm, storeId: string, overrides: Partial<NewCarrierAccount> = {}): Promise<CarrierAccount> {
  return insertCarrierAccount(orm.em.fork(), {
    storeId,
    carrierCode: 'carrier_a',
    currency: 'CZK',
    services: [{ code: 'home', name: 'Home delivery', codSupported: true, pickupPointRequired: false }],
    now: new Date(),
    ...overrides,
  });
}

function labelInput(storeId: string, overrides: Partial<NewLabel>): NewLabel {
  const orderId = overrides.orderId ?? aPlatformId();
  return {
    storeId,
    orderId,
    orderName: `#${orderId.slice(-6)}`,
    fulfillmentOrderIds: [],
    carrierCode: 'carrier_c',
    status: 'ready',
    source: 'admin',
    trackingNumber: `TN${aPlatformId()}`,
    createdAt: new Date(),
    ...overrides,
  };
}

/** A label inserted through the repository, so its derived properties are maintained as in production. */
export async function aLabel(orm: Orm, storeId: string, overrides: Partial<NewLabel> = {}): Promise<Label> {
  return insertLabel(orm.em.fork(), labelInput(storeId, overrides));
}

export async function someLabels(orm: Orm, storeId: string, overrides: Array<Partial<NewLabel>>): Promise<Label[]> {
  return insertLabels(orm.em.fork(), overrides.map((o) => labelInput(storeId, o)));
}

/** Stores a (tiny, not rendered) PDF for a label; enough for availability, not for the document endpoints. */
export async function aStoredDocument(orm: Orm, labelId: string, options: { notIsolated?: boolean } = {}): Promise<void> {
  await storeLabelDocument(orm.em.fork(), {
    labelId,
    pdf: Buffer.from('%PDF-1.7\n%%EOF\n'),
    pageSize: 'A6',
    pageCount: 1,
    notIsolated: options.notIsolated ?? false,
    storedAt: new Date(),
  });
}
