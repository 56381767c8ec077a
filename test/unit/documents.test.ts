import { PDFDocument } from 'pdf-lib';
import { PAGE_SIZES } from '../../src/domain/carrier-catalog';
import { documentFileName, documentRefusal, type DocumentSubject } from '../../src/documents/refusals';
import { placeOnA4 } from '../../src/pdf/a4';
import { mergePdfs } from '../../src/pdf/merge';
import { apiErrorFromDomain } from '../../src/http/api-error';
import { looksLikePdf, PdfUnreadableError } from '../../src/pdf/errors';

const now = new Date('2026-11-22T12:00:00Z');
const label = (overrides: Partial<DocumentSubject> = {}): DocumentSubject => ({
  id: 'lbl_1',
  status: 'ready',
  kind: 'shipment',
  source: 'api',
  labelCreationId: 'lcr_1',
  createdAt: new Date(now.getTime() - 60_000),
  ...overrides,
});

describe('documentRefusal', () => {
  it.each<
    [
      string,
      Partial<DocumentSubject>,
      Parameters<typeof documentRefusal>[1],
      number | null,
      string | null,
      string | null,
      Record<string, unknown> | null,
    ]
  >([
    ['available', {}, 'available', null, null, null, null],
    [
      'pending API label',
      { status: 'pending' },
      'pending',
      409,
      'label_pending',
      '2',
      { label_id: 'lbl_1', label_creation_id: 'lcr_1' },
    ],
    [
      'pending admin label',
      { status: 'pending', source: 'admin', labelCreationId: null },
      'pending',
      409,
      'label_pending',
      '30',
      { label_id: 'lbl_1', label_creation_id: null },
    ],
    ['pending flow label', { status: 'pending', source: 'flow' }, 'pending', 409, 'label_pending', '30', null],
    ['pending label without source', { status: 'pending', source: null }, 'pending', 409, 'label_pending', '30', null],
    [
      'ready, PDF not stored, fresh',
      {},
      'pending',
      409,
      'document_pending',
      '2',
      { label_id: 'lbl_1', label_creation_id: 'lcr_1' },
    ],
    [
      'ready, PDF not stored, 9:59 old',
      { createdAt: new Date(now.getTime() - 599_000) },
      'pending',
      409,
      'document_pending',
      '2',
      null,
    ],
    [
      'ready, PDF not stored, 10 min old',
      { createdAt: new Date(now.getTime() - 600_000) },
      'pending',
      409,
      'document_pending',
      '60',
      null,
    ],
    ['expired', {}, 'expired', 410, 'document_expired', null, { label_id: 'lbl_1' }],
    ['not reissuable', {}, 'not_reissuable', 410, 'label_not_reissuable', null, { label_id: 'lbl_1' }],
    [
      'claim',
      { kind: 'claim' },
      'not_applicable',
      422,
      'document_unavailable',
      null,
      { label_id: 'lbl_1', reason: 'no_label' },
    ],
    [
      'collection',
      { kind: 'collection' },
      'not_applicable',
      422,
      'document_unavailable',
      null,
      { label_id: 'lbl_1', reason: 'no_label' },
    ],
    [
      'failed label',
      { status: 'failed' },
      'not_applicable',
      422,
      'document_unavailable',
      null,
      { label_id: 'lbl_1', reason: 'label_failed' },
    ],
    [
      'not isolated',
      {},
      'not_isolated',
      422,
      'document_unavailable',
      null,
      { label_id: 'lbl_1', reason: 'not_isolated' },
    ],
    [
      'excluded carrier',
      {},
      'carrier_excluded',
      422,
      'document_unavailable',
      null,
      { label_id: 'lbl_1', reason: 'carrier_excluded' },
    ],
  ])('%s', (_name, overrides, availability, status, code, retryAfter, details) => {
    const domain = documentRefusal(label(overrides), availability, now);
    // What the HTTP edge answers for the refusal.
    const refusal = domain ? apiErrorFromDomain(domain) : null;
    expect(refusal?.status ?? null).toBe(status);
    expect(refusal?.code ?? null).toBe(code);
    expect(refusal?.headers['Retry-After'] ?? null).toBe(retryAfter);
    if (details) expect(refusal?.details).toEqual(details);
  });
});

describe('documentFileName', () => {
  it.each([
    ['label', '#1001', 'lbl_x', 'label-1001-lbl_x.pdf'],
    ['label', 'SHOP #12/é', 'lbl_x', 'label-SHOP-12-lbl_x.pdf'],
    ['labels', null, 'lbl_x', 'labels-lbl_x.pdf'],
  ])('%s %s %s -> %s', (prefix, order, id, expected) => expect(documentFileName(prefix, order, id)).toBe(expected));
});

async function pdfOf(sizes: Array<{ width: number; height: number }>): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (const size of sizes)
    doc.addPage([size.width, size.height]).drawRectangle({ x: 10, y: 10, width: 20, height: 20 });
  return doc.save();
}

describe('placeOnA4', () => {
  it('puts every page of the label on its own A4 page', async () => {
    const out = await PDFDocument.load(await placeOnA4(await pdfOf([PAGE_SIZES.A6, PAGE_SIZES.A6])));
    expect(out.getPageCount()).toBe(2);
    for (const page of out.getPages()) {
      expect(page.getWidth()).toBeCloseTo(PAGE_SIZES.A4.width, 1);
      expect(page.getHeight()).toBeCloseTo(PAGE_SIZES.A4.height, 1);
    }
  });
  it('scales down a label larger than the printable area, keeps smaller ones at their size', async () => {
    const tall = { width: PAGE_SIZES.A4.width, height: PAGE_SIZES.A4.height * 1.2 };
    const out = await PDFDocument.load(await placeOnA4(await pdfOf([tall])));
    expect(out.getPageCount()).toBe(1);
    expect(out.getPage(0).getHeight()).toBeCloseTo(PAGE_SIZES.A4.height, 1);
  });
});

describe('mergePdfs', () => {
  it('keeps the order given and every page of every source', async () => {
    const merged = await PDFDocument.load(
      await mergePdfs([
        await pdfOf([PAGE_SIZES.A6]),
        await pdfOf([PAGE_SIZES['10x15'], PAGE_SIZES['10x15']]),
        await pdfOf([PAGE_SIZES.roll_101x160]),
      ]),
    );
    expect(merged.getPages().map((p) => Math.round(p.getHeight()))).toEqual([420, 425, 425, 454]);
  });
  it('names the source it cannot parse', async () => {
    const error = await mergePdfs([await pdfOf([PAGE_SIZES.A6]), Buffer.from('%PDF-1.7 garbage')]).catch((e) => e);
    expect(error).toBeInstanceOf(PdfUnreadableError);
    expect(error.index).toBe(1);
    await expect(placeOnA4(Buffer.from('not a pdf'))).rejects.toBeInstanceOf(PdfUnreadableError);
    await expect(placeOnA4(Buffer.from('%PDF-1.7 garbage\n%%EOF\n'))).rejects.toBeInstanceOf(PdfUnreadableError);
  });
  it('tells a whole PDF from an empty, foreign or truncated file without parsing it', async () => {
    const whole = await pdfOf([PAGE_SIZES.A6]);
    expect(looksLikePdf(whole)).toBe(true);
    expect(looksLikePdf(whole.subarray(0, whole.length - 200))).toBe(false);
    expect(looksLikePdf(Buffer.from('<html>not a pdf</html>'))).toBe(false);
    expect(looksLikePdf(new Uint8Array())).toBe(false);
  });
});
