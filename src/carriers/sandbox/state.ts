import type { PageSizeName } from '../../domain/carrier-catalog';
import type { Money } from '../../domain/money';
import type { ScriptedFault } from './faults';

export type LedgerStatus = 'ready' | 'pending' | 'draft' | 'import_rejected';

/** One shipment (or carrier A claim) a simulator really created: the ledger entry and the simulator's own record. */
export interface SimulatedShipment {
  kind: 'shipment' | 'claim';
  carrierCode: string;
  accountId: string;
  shipmentId: string;
  reference: string;
  orderName: string;
  serviceCode: string;
  status: LedgerStatus;
  trackingNumber: string | null;
  barcode: string | null;
  batchId: string | null;
  cod: Money | null;
  declaredValue: Money | null;
  extras: Record<string, string>;
  recipientName: string;
  /** The pickup point the shipment goes to; null for delivery to the address. */
  pickupPoint: { id: string; country: string } | null;
  pageSize: PageSizeName;
  pages: number;
  /** The carrier's stored copy; `null` until printed or completed, and always for render-on-demand carriers. */
  pdf: Uint8Array | null;
  /** Carrier B: this batch is refused at import when it completes (scripted). */
  rejectAtImport: boolean;
  labelCalls: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface AccountState {
  faults: ScriptedFault[];
  shipments: SimulatedShipment[];
  /** Carrier B: batches complete by themselves after `batchDelayMs`, or only through the control endpoint. */
  batchCompletion: 'auto' | 'manual';
  batchDelayMs: number;
  timers: Set<NodeJS.Timeout>;
}

/** In-memory state of every simulated carrier account, keyed by account ID so parallel tests never collide. */
export class CarrierSandboxState {
  private readonly accounts = new Map<string, AccountState>();
  /**
   * The accounts the sandbox's carriers have: registered through the control API (the fixture loader registers every
   * sandbox account it loads), or used in a carrier call or a setting. A reset forgets an account's data, not the
   * account.
   */
  private readonly known = new Set<string>();
  private sequence = 0;
  readonly legacyFiles = new Map<
    string,
    { accountId: string; carrierCode: string; pdf: Uint8Array; trackingNumbers: string[] }
  >();

  /** The account's state, made on first use; the account is known from then on. */
  account(accountId: string): AccountState {
    this.known.add(accountId);
    let state = this.accounts.get(accountId);
    if (!state) {
      state = { faults: [], shipments: [], batchCompletion: 'auto', batchDelayMs: 100, timers: new Set() };
      this.accounts.set(accountId, state);
    }
    return state;
  }

  /** The account's scripted faults still queued, without making the account known. */
  queuedFaults(accountId: string): ScriptedFault[] {
    return this.accounts.get(accountId)?.faults ?? [];
  }

  knows(accountId: string): boolean {
    return this.known.has(accountId);
  }

  knownAccounts(): string[] {
    return [...this.known].sort();
  }

  /** Numbers unique within the process; the start time keeps them distinct across sandbox restarts. */
  nextNumber(digits: number): string {
    this.sequence += 1;
    const seed = (Date.now() % 1_000_000) * 10_000 + this.sequence;
    return String(seed).padStart(digits, '0').slice(-digits);
  }

  later(accountId: string, ms: number, run: () => Promise<void>, onError: (error: unknown) => void): void {
    const state = this.account(accountId);
    const timer = setTimeout(() => {
      state.timers.delete(timer);
      run().catch(onError);
    }, ms);
    state.timers.add(timer);
  }

  findShipment(accountId: string, carrierCode: string, shipmentId: string): SimulatedShipment | null {
    return (
      this.account(accountId).shipments.find((s) => s.carrierCode === carrierCode && s.shipmentId === shipmentId) ??
      null
    );
  }

  findByReference(accountId: string, carrierCode: string, reference: string): SimulatedShipment[] {
    return this.account(accountId).shipments.filter(
      (s) => s.carrierCode === carrierCode && s.reference === reference && s.kind === 'shipment',
    );
  }

  ledger(filter: { accountId?: string | null; carrierCode?: string | null }): SimulatedShipment[] {
    const accounts = filter.accountId ? [this.account(filter.accountId)] : [...this.accounts.values()];
    return accounts
      .flatMap((a) => a.shipments)
      .filter((s) => !filter.carrierCode || s.carrierCode === filter.carrierCode);
  }

  reset(accountId: string): void {
    const state = this.accounts.get(accountId);
    if (!state) return;
    for (const timer of state.timers) clearTimeout(timer);
    this.accounts.delete(accountId);
    for (const [id, file] of this.legacyFiles) if (file.accountId === accountId) this.legacyFiles.delete(id);
  }
}

export function ledgerEntryToWire(s: SimulatedShipment): Record<string, unknown> {
  return {
    kind: s.kind,
    carrier_code: s.carrierCode,
    carrier_account_id: s.accountId,
    shipment_id: s.shipmentId,
    reference: s.reference,
    order_name: s.orderName,
    service_code: s.serviceCode,
    status: s.status,
    tracking_number: s.trackingNumber,
    barcode: s.barcode,
    batch_id: s.batchId,
    cod: s.cod,
    declared_value: s.declaredValue,
    pickup_point: s.pickupPoint,
    extras: s.extras,
    page_size: s.pageSize,
    pages: s.pages,
    has_stored_pdf: s.pdf !== null,
    label_calls: s.labelCalls,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
