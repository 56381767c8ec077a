import { PAGE_SIZES, MM, type PageSizeName } from '../domain/carrier-catalog';

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
 * A readable sandbox label in the carrier's native size, one page per caption.
 *
 * Written directly as PDF objects rather than through pdf-lib: every sandbox shipment renders one, and pdf-lib's
 * document model and deflate made the sandbox carrier the largest CPU cost of a creation in the benchmark (about
 * 3 ms a label, against microseconds here). The text uses the standard Helvetica fonts (not embedded), so the file
 * stays a few kilobytes and any PDF reader shows it.
 */
export async function renderSampleLabel(input: SampleLabelInput): Promise<Uint8Array> {
  const { width, height } = PAGE_SIZES[input.pageSize];
  const captions = input.pageCaptions ?? ['Shipping label'];
  const pages = captions.map((caption, index) =>
    pageContent(input, width, height, `${caption} (${index + 1}/${captions.length})`),
  );
  return writePdf({
    title: `${input.carrierName} ${input.trackingNumber}`,
    producer: 'Shipping Label API sandbox',
    width,
    height,
    pages,
  });
}

const REGULAR = 'F1';
const BOLD = 'F2';
/** Helvetica's mean advance width per unit of font size: enough to keep a line inside the label's margins. */
const MEAN_ADVANCE = 0.52;

function pageContent(input: SampleLabelInput, width: number, height: number, caption: string): string {
  const margin = 6 * MM;
  const ops: string[] = [
    `1.5 w 0 0 0 RG ${n(margin / 2)} ${n(margin / 2)} ${n(width - margin)} ${n(height - margin)} re S`,
  ];
  const text = (font: string, size: number, y: number, value: string) => {
    const room = Math.floor((width - 2 * margin) / (size * MEAN_ADVANCE));
    ops.push(`BT /${font} ${n(size)} Tf ${n(margin)} ${n(y)} Td ${pdfString(value.slice(0, room))} Tj ET`);
  };
  let y = height - margin - 14;
  text(BOLD, 14, y, input.carrierName);
  y -= 14;
  text(REGULAR, 6.5, y, `SANDBOX - NOT A REAL SHIPMENT - ${caption}`);
  y -= 12 + 22 * MM;
  ops.push(barcodeMark(input.trackingNumber, margin, y, width - 2 * margin, 22 * MM));
  y -= 14;
  text(BOLD, 13, y, input.trackingNumber);
  y -= 8;
  for (const line of input.lines) {
    y -= 11;
    if (y < margin) break;
    text(REGULAR, 8.5, y, line);
  }
  return ops.join('\n');
}

/**
 * Bars drawn from the bits of each character: not a scannable symbology, but a person sees a barcode-like mark that
 * differs per tracking number, which is all the sandbox promises.
 */
function barcodeMark(text: string, x: number, y: number, width: number, height: number): string {
  const bits: boolean[] = [true, false, true];
  for (const char of text) {
    const code = char.charCodeAt(0);
    for (let i = 6; i >= 0; i -= 1) bits.push(((code >> i) & 1) === 1);
    bits.push(false);
  }
  bits.push(true, false, true);
  const bar = width / bits.length;
  const rects = bits.flatMap((on, i) => (on ? [`${n(x + i * bar)} ${n(y)} ${n(bar)} ${n(height)} re`] : []));
  return `0 0 0 rg\n${rects.join('\n')}\nf`;
}

/** A number as PDF writes it: at most three decimals, no exponent. */
function n(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}

/**
 * A PDF literal string in WinAnsiEncoding (Latin-1 for letters). Letters outside it lose their accents (`ř` -> `r`),
 * anything else becomes `?`: a sandbox label never fails over a recipient's name.
 */
export function pdfString(value: string): string {
  let out = '(';
  for (const char of value) {
    const latin1 = toLatin1(char);
    if (latin1 === '(' || latin1 === ')' || latin1 === '\\') out += `\\${latin1}`;
    else if (latin1 < '\x7f') out += latin1;
    else out += `\\${latin1.charCodeAt(0).toString(8).padStart(3, '0')}`;
  }
  return `${out})`;
}

function toLatin1(char: string): string {
  if (printable(char)) return char;
  const base = char.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  return base.length === 1 && printable(base) ? base : '?';
}

/** Printable in Latin-1: ASCII without controls, or U+00A0 to U+00FF. */
function printable(char: string): boolean {
  const code = char.codePointAt(0)!;
  return (code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code <= 0xff);
}

interface PdfInput {
  title: string;
  producer: string;
  width: number;
  height: number;
  /** One content stream per page. */
  pages: string[];
}

/** A complete PDF file: catalog, page tree, the two standard fonts, one page and content stream per page, info. */
function writePdf(input: PdfInput): Uint8Array {
  // Objects 1-5 are fixed; each page is a page object and its content stream, numbered from 6.
  const pageRef = (i: number) => 6 + 2 * i;
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${input.pages.map((_, i) => `${pageRef(i)} 0 R`).join(' ')}] /Count ${input.pages.length} >>`,
    `<< /Title ${pdfString(input.title)} /Producer ${pdfString(input.producer)} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
  ];
  input.pages.forEach((content, i) => {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${n(input.width)} ${n(input.height)}] ` +
        `/Resources << /Font << /${REGULAR} 4 0 R /${BOLD} 5 0 R >> >> /Contents ${pageRef(i) + 1} 0 R >>`,
      // Content strings are ASCII (pdfString escapes the rest), so their length in bytes is their length.
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    );
  });
  let body = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets = objects.map((object, i) => {
    const offset = body.length;
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 3 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  // Every character above is a single byte (the header's binary marker included): latin1 writes them as they are.
  return new Uint8Array(Buffer.from(body, 'latin1'));
}
