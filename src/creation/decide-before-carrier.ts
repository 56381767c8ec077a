import type { Orm } from '../db/orm';
import { decideCreation, type CreationDecision } from '../domain/creation-decision';
import type { CreationRequest } from '../domain/creation-request';
import type { CarrierProtection } from './carrier-protection';
import { loadCreationContext, type LoadContextDeps } from './load-context';

/** What the decision before the carrier call reads: the database, the store platform and carrier protection's state. */
export interface BeforeCarrierDeps {
  orm: Orm;
  platform: LoadContextDeps['platform'];
  carrierProtection: Pick<CarrierProtection, 'check'>;
  now: () => Date;
}

/**
 * Every check up to the carrier call (spec `POST /labels` "Dry run": "order, target, existing labels, carrier
 * selection, COD, pre-carrier checks"), carrier protection's blocks included (decision 0503): the dry run's answer,
 * and a live request's checks on arrival (decision 0120). A block is returned as the refusal it is; a read that
 * fails (the store platform, the database) is thrown, having decided nothing. Records nothing.
 */
export async function decideBeforeCarrier(
  deps: BeforeCarrierDeps,
  input: { storeId: string; request: CreationRequest },
): Promise<CreationDecision> {
  const context = await loadCreationContext({ em: deps.orm.em.fork(), platform: deps.platform }, input);
  const decision = decideCreation(context, input.request, deps.now().getTime());
  if (decision.kind !== 'create') return decision;
  // The account as the context read it: protection need not read it again.
  const account = context.carrierAccounts.find((a) => a.id === decision.carrierCall.carrierAccountId)!;
  const protection = await deps.carrierProtection.check({
    storeId: input.storeId,
    call: decision.carrierCall,
    fulfillmentOrderGids: decision.targetFulfillmentOrderIds,
    account: { id: account.id, updatedAt: new Date(account.updatedAtMs) },
  });
  return protection.kind === 'block'
    ? { kind: 'refuse', order: decision.order, refusal: protection.refusal }
    : decision;
}
