import { PDFDocument, StandardFonts } from 'pdf-lib';
import { MM } from '../../../domain/carrier-catalog';
import { positionsPerPage, type LabelFormat } from '../label-formats';
import type { FakePacket } from './state';

/**
 * The fake Packeta's labels: the format's page, its labels in rows from the top left, the first `offset` positions of
 * the first page left empty (docs `packetLabelPdf`). Each label says it is not a real shipment and shows what the
 * tests look for: the barcode text, the order number and the destination.
 */
export async function renderLabels(packets: FakePacket[], format: LabelFormat, offset: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Packeta (fake) ${packets.map((p) => p.barcode).join(' ')}`);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const perPage = positionsPerPage(format);
  const pageWidth = format.page.widthMm * MM;
  const pageHeight = format.page.heightMm * MM;
  const labelWidth = format.label.widthMm * MM;
  const labelHeight = format.label.heightMm * MM;
  let page = doc.addPage([pageWidth, pageHeight]);
  packets.forEach((packet, index) => {
    const position = offset + index;
    if (position > 0 && position % perPage === 0) page = doc.addPage([pageWidth, pageHeight]);
    const slot = position % perPage;
    const x = (slot % format.columns) * labelWidth;
    const top = pageHeight - Math.floor(slot / format.columns) * labelHeight;
    const size = Math.min(9, labelHeight / 6);
    const lines = [
      'PACKETA (FAKE) - NOT A REAL SHIPMENT',
      packet.barcode.replace(/^Z(\d{3})(\d{4})(\d+)$/, 'Z $1 $2 $3'),
      `Order ${packet.number}`,
      `To ${packet.attributes.addressId ?? ''}`,
    ];
    lines.forEach((line, i) => page.drawText(line, { x: x + 8, y: top - 12 - i * (size + 3), size, font }));
  });
  return doc.save();
}
