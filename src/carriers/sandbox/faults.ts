import { z } from 'zod';
import { CARRIER_REJECTION_REASONS } from '../port';

/** Faults an integrator can script per carrier account (docs/sandbox.md lists what each one does). */
export const FAULT_TYPES = [
  'timeout_created',
  'timeout_not_created',
  'server_error',
  'reject',
  'slow',
  'late_acceptance',
  'import_rejected',
  'draft_left',
  'render_error',
] as const;
export type FaultType = (typeof FAULT_TYPES)[number];

/**
 * The carrier call a fault applies to; render errors hit the label call, everything else the create call unless
 * named. `pickup_points` is the pickup-point search and lookup of carriers with a network.
 */
export const FAULT_OPERATIONS = ['create', 'label', 'status', 'pickup_points'] as const;
export type FaultOperation = (typeof FAULT_OPERATIONS)[number];

export const faultSchema = z
  .object({
    type: z.enum(FAULT_TYPES),
    /** How many of the next matching calls it affects. */
    times: z.number().int().min(1).max(1000).default(1),
    operation: z.enum(FAULT_OPERATIONS).optional(),
    reason: z.enum(CARRIER_REJECTION_REASONS).optional(),
    /** The carrier's own refusal text (kept internally by the service, never shown to API clients). */
    message: z.string().max(500).optional(),
    /** How long a timeout holds the connection before dropping it; longer than the caller's timeout. */
    hold_ms: z.number().int().min(0).max(120_000).default(1_000),
    /** How long a slow answer waits. */
    delay_ms: z.number().int().min(0).max(120_000).default(500),
    /** When a late acceptance creates the shipment after the dropped call. */
    accept_after_ms: z.number().int().min(0).max(600_000).default(200),
  })
  .strict()
  .refine((f) => f.type !== 'reject' || f.reason !== undefined, {
    message: 'a reject fault needs a reason',
    path: ['reason'],
  });

export const scriptFaultsBodySchema = z.object({ faults: z.array(faultSchema).min(1).max(50) }).strict();

export type ScriptedFault = z.infer<typeof faultSchema> & { operation: FaultOperation };

export function withDefaultOperation(fault: z.infer<typeof faultSchema>): ScriptedFault {
  return { ...fault, operation: fault.operation ?? (fault.type === 'render_error' ? 'label' : 'create') };
}

/** Takes one use of the first queued fault for this operation; a fault is removed once its `times` are used. */
export function takeFault(queue: ScriptedFault[], operation: FaultOperation): ScriptedFault | null {
  const index = queue.findIndex((f) => f.operation === operation);
  if (index < 0) return null;
  const fault = queue[index]!;
  fault.times -= 1;
  if (fault.times <= 0) queue.splice(index, 1);
  return { ...fault };
}

export function faultToWire(fault: ScriptedFault): Record<string, unknown> {
  return { ...fault, remaining: fault.times };
}
