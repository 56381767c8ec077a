/** A PDF that pdf-lib cannot parse; `index` says which of several inputs it was. */
export class PdfUnreadableError extends Error {
  override readonly name = 'PdfUnreadableError';
  constructor(
    readonly index: number,
    cause: unknown,
  ) {
    super(`PDF ${index} cannot be parsed: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/**
 * Cheap check before serving bytes as they are, without parsing them: a PDF starts with `%PDF-` and ends with `%%EOF`
 * (within the last kilobyte), so an empty, foreign or truncated file is caught.
 */
export function looksLikePdf(bytes: Uint8Array): boolean {
  if (bytes.length < 12) return false;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return (
    buffer.subarray(0, 5).toString('latin1') === '%PDF-' &&
    buffer.subarray(Math.max(0, buffer.length - 1024)).includes('%%EOF', 0, 'latin1')
  );
}
