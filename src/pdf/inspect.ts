import { PDFDocument } from 'pdf-lib';
import { PAGE_SIZES, type PageSizeName } from '../domain/carrier-catalog';

/** Catalogue size of a page within half a millimetre, or `null` for other sizes. */
export function pageSizeName(width: number, height: number): PageSizeName | null {
  const tolerance = 1.5; // points, about half a millimetre
  const entry = Object.entries(PAGE_SIZES).find(
    ([, size]) => Math.abs(size.width - width) < tolerance && Math.abs(size.height - height) < tolerance,
  );
  return (entry?.[0] as PageSizeName | undefined) ?? null;
}

/** Page count and the first page's catalogue size of a carrier PDF; throws on bytes that are not a PDF. */
export async function describePdf(bytes: Uint8Array): Promise<{ pages: number; pageSize: PageSizeName | null }> {
  const doc = await PDFDocument.load(bytes);
  const first = doc.getPage(0);
  return { pages: doc.getPageCount(), pageSize: pageSizeName(first.getWidth(), first.getHeight()) };
}
