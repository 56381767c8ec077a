/**
 * Durations, and instants built from the real clock. Integration tests share PostgreSQL, the Temporal server and the
 * workers of the global setup, whose clocks run on; a test builds its instants from `Date.now()` (or moves the app's
 * own clock, `app.clock`) so that it answers the same on any day (README "Tests").
 */
export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** `ms` down to its whole second: the API's timestamps have second precision. */
export const secondAligned = (ms: number): number => Math.floor(ms / SECOND) * SECOND;

/** Midnight UTC of the day holding `ms`, for tests whose windows are UTC days or hours. */
export const utcDayStart = (ms: number): number => Math.floor(ms / DAY) * DAY;

/** An instant as the API writes it: UTC at second precision, `2026-11-27T10:20:30Z`. */
export const isoSeconds = (at: number | Date): string =>
  `${new Date(secondAligned(typeof at === 'number' ? at : at.getTime())).toISOString().slice(0, 19)}Z`;

/**
 * An instant written in a zone `offsetMinutes` east of UTC, `2026-11-27T12:20:30+02:00`, as a client may send it;
 * `fraction` (`.5`, `.999999999`) follows the seconds of its whole second.
 */
export function isoSecondsInZone(at: number, offsetMinutes: number, fraction = ''): string {
  const local = new Date(secondAligned(at) + offsetMinutes * MINUTE).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${fraction}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
