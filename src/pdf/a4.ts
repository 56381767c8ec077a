import { PDFDocument } from 'pdf-lib';
import { PAGE_SIZES } from '../domain/carrier-catalog';
import { PdfUnreadableError } from './errors';

const MARGIN = 28; // ~10 mm: inside every office printer's printable area

/**
 * Places each page of a label on its own A4 page, top-left at its natural size (scaled down only if it would not
 * fit), so it prints at the size the carrier's scanners expect and can be cut out.
 */
export async function placeOnA4(labelPdf: Uint8Array): Promise<Uint8Array> {
  const out = await PDFDocument.create();
  // pdf-lib parses leniently: a damaged file may load and fail only when its pages are embedded.
  const embedded = await PDFDocument.load(labelPdf)
    .then((source) => {
      if (source.getPageCount() === 0) throw new Error('no pages');
      return out.embedPdf(source, source.getPageIndices());
    })
    .catch((error: unknown) => {
      throw new PdfUnreadableError(0, error);
    });
  const { width: pageWidth, height: pageHeight } = PAGE_SIZES.A4;
  for (const page of embedded) {
    const scale = Math.min(1, (pageWidth - 2 * MARGIN) / page.width, (pageHeight - 2 * MARGIN) / page.height);
    const a4 = out.addPage([pageWidth, pageHeight]);
    a4.drawPage(page, { x: MARGIN, y: pageHeight - MARGIN - page.height * scale, xScale: scale, yScale: scale });
  }
  return out.save();
}
