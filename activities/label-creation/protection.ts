import { createCarrierProtection, type ProtectedAccount } from '../../src/creation/carrier-protection';
import type { SendOutcome } from '../../src/creation/carrier-call';
import type { CreationKit } from './kit';
import type { CallTarget, SendToCarrierInput, SentToCarrier } from './types';

/**
 * Carrier protection around the carrier call (docs/decisions/0500-carrier-protection.md): its state is in PostgreSQL,
 * shared by every worker.
 */
export function carrierProtectionGate({ deps }: CreationKit) {
  const protection = createCarrierProtection({ orm: deps.orm, now: deps.now, settings: deps.carrierProtection });
  const target = (input: CallTarget, account: ProtectedAccount) => ({
    storeId: input.storeId,
    call: input.carrierCall,
    fulfillmentOrderGids: input.fulfillmentOrderGids,
    account,
  });

  return {
    /** Checked before the call counts as sent: a blocked creation never reaches the carrier and gets its unit back. */
    async block(input: CallTarget, account: ProtectedAccount): Promise<SentToCarrier | null> {
      const decision = await protection.check(target(input, account));
      if (decision.kind === 'allow') return null;
      deps.logger.warn(
        { label_creation_id: input.creationId, code: decision.refusal.code, details: decision.refusal.details },
        'carrier protection refused the carrier call',
      );
      return { kind: 'blocked', error: decision.refusal };
    },

    /** What the call came to, for the account's circuit and refusal counts. Never fails the call it describes. */
    async record(input: SendToCarrierInput, outcome: SendOutcome, account: ProtectedAccount): Promise<void> {
      try {
        await protection.record({
          ...target(input, account),
          creationId: input.creationId,
          outcome: outcome.kind,
          reason: outcome.kind === 'accepted' ? null : outcome.reason,
        });
      } catch (error) {
        deps.logger.error({ err: error, label_creation_id: input.creationId }, 'carrier outcome not recorded');
      }
    },
  };
}
