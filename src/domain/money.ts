/** A money amount as on the wire: decimal string with two decimals, ISO currency. */
export interface Money {
  amount: string;
  currency: string;
}
