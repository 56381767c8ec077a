/** A pickup point as the sandbox carriers' pickup networks send it (what simulators serve and adapters read). */
export interface SandboxPickupPoint {
  id: string;
  kind: 'pickup_point' | 'locker';
  name: string;
  place: string | null;
  street: string;
  city: string;
  zip: string;
  country: string;
  latitude: number;
  longitude: number;
  /** Contract notation per weekday; absent days are closed. */
  opening_hours: Record<string, string>;
  requires_customer_id: boolean;
  pin_url: string | null;
}
