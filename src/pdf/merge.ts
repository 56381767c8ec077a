import { PDFDocument } from 'pdf-lib';

/** One PDF holding every page of the given PDFs, in order. */
export async function mergePdfs(files: readonly Uint8Array[]): Promise<Uint8Array> {
  const merged = await PDFDocument.create();
  for (const file of files) {
    const source = await PDFDocument.load(file);
    const pages = await merged.copyPages(source, source.getPageIndices());
    pages.forEach((page) => merged.addPage(page));
  }
  return merged.save();
}
