/** Wire timestamps: ISO 8601 UTC at second precision (`2026-10-01T12:00:00Z`). */
export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

export function isoSecondsOrNull(date: Date | null | undefined): string | null {
  return date ? isoSeconds(date) : null;
}

/** Money on the wire: a decimal string with two places. */
export function money(amount: number | string): string {
  return Number(amount).toFixed(2);
}
