import { PDFDocument, StandardFonts, rgb, type PDFPage } from 'pdf-lib';
import { PAGE_SIZES, MM, type PageSizeName } from '../carriers/catalog';

export interface SampleLabelInput {
  pageSize: PageSizeName;
  carrierName: string;
  trackingNumber: string;
  /** Printed under the tracking number: service, recipient, COD, page captions. */
  lines: string[];
  /** One caption per page; two captions make a two-page label (e.g. shipment label and COD receipt). */
  pageCaptions?: string[];
}

/**
 * Bars drawn from the bits of each character: not a scannable symbology, but a person sees a barcode-like mark that
 * differs per tracking number, which is all the sandbox promises.
 */
function drawBarcodeMark(page: PDFPage, text: string, x: number, y: number, width: number, height: number): void {
  const bits: boolean[] = [true, false, true];
  for (const char of text) {
    const code = char.charCodeAt(0);
    for (let i = 6; i >= 0; i -= 1) bits.push(((code >> i) & 1) === 1);
    bits.push(false);
  }
  bits.push(true, false, true);
  const bar = width / bits.length;
  bits.forEach((on, i) => {
    if (on) page.drawRectangle({ x: x + i * bar, y, width: bar, height, color: rgb(0, 0, 0) });
  });
}

/** A readable sandbox label in the carrier's native size, one page per caption. */
export async function renderSampleLabel(input: SampleLabelInput): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`${input.carrierName} ${input.trackingNumber}`);
  doc.setProducer('Shipping Label API sandbox');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const { width, height } = PAGE_SIZES[input.pageSize];
  const captions = input.pageCaptions ?? ['Shipping label'];
  const margin = 6 * MM;
  captions.forEach((caption, index) => {
    const page = doc.addPage([width, height]);
    page.drawRectangle({
      x: margin / 2,
      y: margin / 2,
      width: width - margin,
      height: height - margin,
      borderWidth: 1.5,
      borderColor: rgb(0, 0, 0),
    });
    let y = height - margin - 14;
    page.drawText(input.carrierName, { x: margin, y, size: 14, font: bold });
    y -= 14;
    page.drawText(`SANDBOX - NOT A REAL SHIPMENT - ${caption} (${index + 1}/${captions.length})`, {
      x: margin,
      y,
      size: 6.5,
      font,
    });
    y -= 12 + 22 * MM;
    drawBarcodeMark(page, input.trackingNumber, margin, y, width - 2 * margin, 22 * MM);
    y -= 14;
    page.drawText(input.trackingNumber, { x: margin, y, size: 13, font: bold });
    y -= 8;
    for (const line of input.lines) {
      y -= 11;
      if (y < margin) break;
      page.drawText(line, { x: margin, y, size: 8.5, font, maxWidth: width - 2 * margin });
    }
  });
  return doc.save();
}
