/**
 * The label formats `packetLabelPdf` and `packetsLabelsPdf` render (docs `api-reference/api-methods-reference`): the
 * label's size, the page it is placed on, and how many labels a page holds. `offset` is the number of positions
 * skipped on the first page, counted left to right from the top left; the docs give no range, Packeta's WooCommerce
 * plugin offers 0 to positions - 1 (its `maxOffset`), and the adapter and the fake keep to that.
 */
export interface LabelFormat {
  format: string;
  /** Label size in millimetres. */
  label: { widthMm: number; heightMm: number };
  /** Page size in millimetres. */
  page: { widthMm: number; heightMm: number };
  /** Labels per page, filled in rows from the top left. */
  columns: number;
  rows: number;
}

const A4 = { widthMm: 210, heightMm: 297 };

export const LABEL_FORMATS: readonly LabelFormat[] = [
  {
    format: 'A6 on A6',
    label: { widthMm: 105, heightMm: 148 },
    page: { widthMm: 105, heightMm: 148 },
    columns: 1,
    rows: 1,
  },
  {
    format: 'A7 on A7',
    label: { widthMm: 105, heightMm: 74 },
    page: { widthMm: 105, heightMm: 74 },
    columns: 1,
    rows: 1,
  },
  { format: 'A6 on A4', label: { widthMm: 105, heightMm: 148 }, page: A4, columns: 2, rows: 2 },
  { format: 'A7 on A4', label: { widthMm: 105, heightMm: 74 }, page: A4, columns: 2, rows: 4 },
  { format: '105x35mm on A4', label: { widthMm: 105, heightMm: 35 }, page: A4, columns: 2, rows: 8 },
  {
    format: 'A8 on A8',
    label: { widthMm: 50, heightMm: 74 },
    page: { widthMm: 50, heightMm: 74 },
    columns: 1,
    rows: 1,
  },
];

export const labelFormat = (format: string): LabelFormat | undefined => LABEL_FORMATS.find((f) => f.format === format);

/** Positions on one page: the largest offset is one less. */
export const positionsPerPage = (format: LabelFormat): number => format.columns * format.rows;

/** The single label the service stores (spec: carrier A's label is A6). */
export const SINGLE_LABEL_FORMAT = 'A6 on A6';
