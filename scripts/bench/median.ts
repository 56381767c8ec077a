/** The middle value (the upper of the two middle ones for an even count): rounds of a load, their ratios. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
