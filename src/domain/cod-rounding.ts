import type { CodRounding } from './carrier-catalog';
import type { Money } from './money';

/** Parses a wire amount (`"123.45"`, at most two decimals) into hundredths, so rounding never meets float error. */
export function toHundredths(amount: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
  if (!match) throw new Error(`not a money amount: "${amount}"`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

export function fromHundredths(hundredths: number): string {
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
}

/** The rule for a currency: its own entry, else the `*` entry, else none (the amount is sent as is). */
export function codRoundingFor(table: Readonly<Record<string, CodRounding>>, currency: string): CodRounding | null {
  return table[currency] ?? table['*'] ?? null;
}

/**
 * What the carrier will collect for a COD amount: whole units round half up (the carrier's rule), a multiple
 * rounds up so the courier never collects less than the order owes.
 */
export function roundCod(cod: Money, table: Readonly<Record<string, CodRounding>>): Money {
  const rule = codRoundingFor(table, cod.currency);
  const value = toHundredths(cod.amount);
  if (!rule) return { amount: fromHundredths(value), currency: cod.currency };
  const step = rule.mode === 'whole' ? 100 : rule.multiple * 100;
  const rounded = rule.mode === 'whole' ? Math.round(value / step) * step : Math.ceil(value / step) * step;
  return { amount: fromHundredths(rounded), currency: cod.currency };
}
