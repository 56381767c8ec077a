/** Dated API versions; at most two are live at once (spec "Versioning"). */
export const CURRENT_VERSION = '2026-10-01';
export const SUPPORTED_VERSIONS: readonly string[] = [CURRENT_VERSION];
