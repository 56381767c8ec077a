const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "250ms", "15s", "5m", "24h", "90d" (or a bare number of milliseconds) into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) throw new Error(`not a duration: "${text}" (use e.g. 500ms, 15s, 5m, 24h, 90d)`);
  return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!);
}

/** The inverse for messages: the largest unit that divides `ms` exactly ("7d", "36h", "1500ms"). */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const)
    if (ms !== 0 && ms % UNITS[unit]! === 0) return `${ms / UNITS[unit]!}${unit}`;
  return `${ms}ms`;
}
