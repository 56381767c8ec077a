import { PDFDocument } from 'pdf-lib';
import { PdfUnreadableError } from './errors';

/**
 * Concatenates PDFs in the given order. Each source is parsed once and all its pages copied in one call, so shared
 * resources (fonts, images) of a source are copied once, not once per page. A source that cannot be parsed throws
 * PdfUnreadableError with its index.
 */
export async function mergePdfs(sources: readonly Uint8Array[]): Promise<Uint8Array> {
  const out = await PDFDocument.create();
  for (const [index, bytes] of sources.entries()) {
    // pdf-lib parses leniently: a damaged file may load and fail only when its pages are copied.
    const pages = await PDFDocument.load(bytes)
      .then((source) => {
        if (source.getPageCount() === 0) throw new Error('no pages');
        return out.copyPages(source, source.getPageIndices());
      })
      .catch((error: unknown) => {
        throw new PdfUnreadableError(index, error);
      });
    for (const page of pages) out.addPage(page);
  }
  return out.save();
}
