import { PDFDocument } from 'pdf-lib';

/**
 * Concatenates PDFs in the given order. Each source is parsed once and all its pages copied in one call, so shared
 * resources (fonts, images) of a source are copied once, not once per page.
 */
export async function mergePdfs(sources: readonly Uint8Array[]): Promise<Uint8Array> {
  const out = await PDFDocument.create();
  for (const bytes of sources) {
    const source = await PDFDocument.load(bytes);
    const pages = await out.copyPages(source, source.getPageIndices());
    for (const page of pages) out.addPage(page);
  }
  return out.save();
}
