/** Czech payment variable symbols hold at most 10 digits. */
const MAX_DIGITS = 10;

/**
 * Carrier B pays collected COD with a variable symbol made of the order name's digits (`#CZ-1001` -> `1001`).
 * Leading zeros carry no meaning in a variable symbol and are dropped; over 10 digits the last 10 are kept because
 * order numbers grow at the end. `null` when the name has no digit other than zeros (spec: cod_variable_symbol_missing).
 */
export function variableSymbolFromOrderName(orderName: string): string | null {
  const digits = orderName.replace(/\D/g, '').replace(/^0+/, '');
  if (digits.length === 0) return null;
  return digits.slice(-MAX_DIGITS);
}
