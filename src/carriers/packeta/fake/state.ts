import { z } from 'zod';
import { PACKETA_CURRENCIES } from '../attributes';
import type { FieldFault } from '../faults';

/**
 * The fake Packeta's memory: client accounts by API password (Packeta knows an account by nothing else), each with
 * its senders, its packets and claims, and the faults a test scripted for it. Lost on restart, like the sandbox's.
 */

export interface FakePacket {
  kind: 'packet' | 'claim';
  id: string;
  barcode: string;
  number: string;
  /** The struct as received, element name to text. */
  attributes: Record<string, string>;
  /** The currency `cod` and `value` were taken in. */
  currency: string | null;
  password: string | null;
  statusCode: number;
  labelCalls: number;
  createdAt: Date;
}

/** The calls a scripted fault applies to. */
export const FAKE_CALLS = ['create', 'label', 'status', 'claim', 'check'] as const;
export type FakeCall = (typeof FAKE_CALLS)[number];

export const FAKE_FAULT_TYPES = [
  'timeout_created',
  'timeout_not_created',
  'server_error',
  'slow',
  'fault',
  'render_error',
] as const;

export const fakeFaultSchema = z
  .object({
    type: z.enum(FAKE_FAULT_TYPES),
    times: z.number().int().min(1).max(1000).default(1),
    /** Default: `label` for `render_error`, else `create`. */
    call: z.enum(FAKE_CALLS).optional(),
    /** `fault`: the fault class Packeta answers (a name of its fault list), with per-field detail. */
    fault: z.string().min(1).max(100).optional(),
    fields: z
      .array(z.object({ name: z.string().min(1), fault: z.string() }).strict())
      .max(20)
      .default([]),
    text: z.string().max(500).optional(),
    hold_ms: z.number().int().min(0).max(120_000).default(1_000),
    delay_ms: z.number().int().min(0).max(120_000).default(500),
  })
  .strict()
  .refine((f) => f.type !== 'fault' || f.fault !== undefined, { message: 'a fault needs its name', path: ['fault'] });

export type FakeFault = z.infer<typeof fakeFaultSchema> & { call: FakeCall; fields: FieldFault[] };

export const accountBodySchema = z
  .object({
    /** The client's senders (`eshop` values); a packet may name one, or a new one (docs: a new sender is created). */
    senders: z.array(z.string().min(1).max(64)).max(20).default(['eshop']),
    /** false: an account Packeta has not approved for posting yet. */
    approved: z.boolean().default(true),
    /**
     * Currencies the client section converts at submission (docs "Handling Currency Conversions"): amounts in them
     * are taken for any destination; otherwise a packet's currency is the destination's.
     */
    currency_conversions: z.array(z.enum(PACKETA_CURRENCIES)).max(PACKETA_CURRENCIES.length).default([]),
  })
  .strict();

export interface FakeAccount {
  senders: Set<string>;
  approved: boolean;
  conversions: Set<string>;
  packets: FakePacket[];
  faults: FakeFault[];
}

/** Packeta's API password: 32 lower-case letters and digits (as its plugins check it). */
export const API_PASSWORD = /^[a-z0-9]{32}$/;

/** The client account `npm run dev -- --packeta` registers for the demo store's carrier A account. */
export const DEMO_PACKETA_PASSWORD = 'fakepacketademo00000000000000000';

export class FakePacketaState {
  private readonly accounts = new Map<string, FakeAccount>();
  private lastId = 0;

  register(password: string, body: z.infer<typeof accountBodySchema>): FakeAccount {
    const account: FakeAccount = {
      senders: new Set(body.senders),
      approved: body.approved,
      conversions: new Set(body.currency_conversions),
      packets: [],
      faults: [],
    };
    this.accounts.set(password, account);
    return account;
  }

  account(password: string): FakeAccount | undefined {
    return this.accounts.get(password);
  }

  forget(password: string): void {
    this.accounts.delete(password);
  }

  /** A new packet ID: ten digits (docs: a 10-digit number), increasing from a clock-based start. */
  nextId(): string {
    this.lastId = Math.max(this.lastId + 1, 1_000_000_000 + (Date.now() % 1_000_000_000));
    return String(this.lastId);
  }

  /** One use of the first scripted fault for this call. */
  takeFault(account: FakeAccount, call: FakeCall): FakeFault | null {
    const index = account.faults.findIndex((f) => f.call === call);
    if (index < 0) return null;
    const fault = account.faults[index]!;
    fault.times -= 1;
    if (fault.times <= 0) account.faults.splice(index, 1);
    return { ...fault };
  }
}

export function packetToWire(p: FakePacket): Record<string, unknown> {
  return {
    kind: p.kind,
    id: p.id,
    barcode: p.barcode,
    number: p.number,
    attributes: p.attributes,
    currency: p.currency,
    password: p.password,
    status_code: p.statusCode,
    label_calls: p.labelCalls,
    created_at: p.createdAt.toISOString(),
  };
}
