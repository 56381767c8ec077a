import { PDFDocument } from 'pdf-lib';
import { PAGE_SIZES, type PageSizeName } from '../../src/domain/carrier-catalog';
import { describePdf } from '../../src/pdf/inspect';
import { mergePdfs } from '../../src/pdf/merge';
import { placeOnA4 } from '../../src/pdf/a4';
import { pdfString, renderSampleLabel } from '../../src/pdf/sample-label';

const aLabel = (overrides: Partial<Parameters<typeof renderSampleLabel>[0]> = {}) =>
  renderSampleLabel({
    pageSize: 'A6',
    carrierName: 'Carrier A',
    trackingNumber: 'AA123456789CZ',
    lines: ['Service: a_home', 'Order: #1001', 'To: Jana Nováková'],
    ...overrides,
  });

describe('renderSampleLabel', () => {
  it.each(Object.keys(PAGE_SIZES) as PageSizeName[])('writes a %s page that pdf-lib reads back', async (pageSize) => {
    const bytes = await aLabel({ pageSize });
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBe(1);
    expect(doc.getPage(0).getWidth()).toBeCloseTo(PAGE_SIZES[pageSize].width, 1);
    expect(doc.getPage(0).getHeight()).toBeCloseTo(PAGE_SIZES[pageSize].height, 1);
    expect(await describePdf(bytes)).toEqual({ pages: 1, pageSize });
  });

  it('writes one page per caption, titled with the carrier and the tracking number', async () => {
    const bytes = await aLabel({ pageCaptions: ['Shipping label', 'COD receipt'] });
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(doc.getPageCount()).toBe(2);
    expect(doc.getTitle()).toBe('Carrier A AA123456789CZ');
    expect(doc.getProducer()).toBe('Shipping Label API sandbox');
  });

  it('draws the tracking number, its mark and every line, and differs per tracking number', async () => {
    const text = Buffer.from(await aLabel()).toString('latin1');
    expect(text).toContain('(AA123456789CZ) Tj');
    expect(text).toContain('(To: Jana Nov\\341kov\\341) Tj');
    expect(text).toMatch(/ re\nf\n/);
    expect(Buffer.from(await aLabel({ trackingNumber: 'AA999' })).equals(Buffer.from(await aLabel()))).toBe(false);
  });

  it('is merged and placed on A4 like a carrier PDF', async () => {
    const label = await aLabel();
    expect((await PDFDocument.load(await mergePdfs([label, label]))).getPageCount()).toBe(2);
    expect((await PDFDocument.load(await placeOnA4(label))).getPageCount()).toBe(1);
  });
});

describe('pdfString', () => {
  it.each([
    ['plain', 'Order #1001', '(Order #1001)'],
    ['parentheses and backslashes escaped', 'a (b) \\ c', '(a \\(b\\) \\\\ c)'],
    ['Latin-1 letters kept, as octal', 'Nováková', '(Nov\\341kov\\341)'],
    ['letters outside Latin-1 lose their accent', 'Řeřicha Ševčík', '(Rericha Sevc\\355k)'],
    ['what has no Latin-1 form becomes ?', '中文 €', '(?? ?)'],
    ['control characters become ?', 'a\tb\u0085', '(a?b?)'],
  ])('%s', (_, input, expected) => {
    expect(pdfString(input)).toBe(expected);
  });
});
