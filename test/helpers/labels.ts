import { PDFDocument } from 'pdf-lib';
import { PAGE_SIZES, type PageSizeName } from '../../src/domain/carrier-catalog';
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

export async function aCarrierAccount(
  orm: Orm,
  storeId: string,
  overrides: Partial<NewCarrierAccount> = {},
): Promise<CarrierAccount> {
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
  return insertLabels(
    orm.em.fork(),
    overrides.map((o) => labelInput(storeId, o)),
  );
}

/** A real PDF with one page per size, each with a mark on it, for the document endpoints. */
export async function aPdf(sizes: PageSizeName[] = ['A6'], text = 'label'): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (const size of sizes) {
    const page = doc.addPage([PAGE_SIZES[size].width, PAGE_SIZES[size].height]);
    page.drawText(text, { x: 20, y: PAGE_SIZES[size].height - 40, size: 12 });
  }
  return Buffer.from(await doc.save());
}

/** Stores a PDF for a label: a tiny placeholder unless `pdf` is given (enough for availability). */
export async function aStoredDocument(
  orm: Orm,
  labelId: string,
  options: { notIsolated?: boolean; pdf?: Buffer; pageSize?: PageSizeName; pageCount?: number } = {},
): Promise<void> {
  await storeLabelDocument(orm.em.fork(), {
    labelId,
    pdf: options.pdf ?? Buffer.from('%PDF-1.7\n%%EOF\n'),
    pageSize: options.pageSize ?? 'A6',
    pageCount: options.pageCount ?? 1,
    notIsolated: options.notIsolated ?? false,
    storedAt: new Date(),
  });
}
