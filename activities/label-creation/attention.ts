import { ImportRejectedError, type ShipmentResult } from '../../src/carriers/port';
import { findByReference } from '../../src/creation/carrier-call';
import type { StoredAttention } from '../../src/domain/creation-record';
import { updateAttention } from '../../src/creation/transitions';
import { hasLabelDocument } from '../../src/db/labels-repository';
import { holdForUnresolvedCreation, releaseUnresolvedCreationHold } from '../../src/locks/platform-holds';
import { platformCall, type CreationKit } from './kit';
import type { RecoverInput, Recovered } from './types';

type Account = Awaited<ReturnType<CreationKit['accountOf']>>;
type HoldInput = { storeId: string; creationId: string; fulfillmentOrderGids: string[] };

/** `needs_attention`: looks at the carrier, the platform's hold on the fulfillment orders, and what was learned. */
export function attentionActivities(kit: CreationKit) {
  const { deps, em } = kit;

  /** The shipment by the creation's reference (recorded as its label when found for the first time), or by its ID. */
  async function findShipment(
    input: RecoverInput,
    { account, settings }: Account,
  ): Promise<{ found: ShipmentResult; labelId: string } | { answer: Recovered }> {
    const port = deps.carrierFor(account.carrierCode);
    if (!input.shipmentId || !input.labelId) {
      const found = await findByReference(port, settings, input.creationId);
      if (found.kind === 'none') return { answer: { kind: 'not_found' } };
      if (found.kind === 'draft') return { answer: { kind: 'draft', carrierReference: found.draft.carrierReference } };
      return { found: found.shipment, labelId: (await kit.record(input, account, found.shipment)).labelId };
    }
    try {
      return { found: await port.getShipment(settings, input.shipmentId), labelId: input.labelId };
    } catch (error) {
      if (error instanceof ImportRejectedError) return { answer: { kind: 'import_rejected', labelId: input.labelId } };
      const carrierReference = input.carrierReference ?? input.shipmentId;
      return { answer: { kind: 'exists', labelId: input.labelId, shipmentId: input.shipmentId, carrierReference } };
    }
  }

  return {
    /**
     * `needs_attention`: one look at the carrier by the creation's stable reference (never a create). A shipment found
     * for the first time is recorded as the creation's label; a label is fetched and stored when the carrier has one.
     * Every failure to learn more is `not_found`/`exists` (the next look comes later), never an error.
     */
    async recoverShipment(input: RecoverInput): Promise<Recovered> {
      const account = await kit.accountOf(input.storeId, input.carrierCall.carrierAccountId);
      const looked = await findShipment(input, account);
      if ('answer' in looked) return looked.answer;
      const { found: shipment, labelId } = looked;
      const { shipmentId, carrierReference } = shipment;
      const exists: Recovered = { kind: 'exists', labelId, shipmentId, carrierReference };
      if (shipment.status !== 'ready') return exists;
      if (!(await hasLabelDocument(em(), labelId))) {
        try {
          const port = deps.carrierFor(account.account.carrierCode);
          await kit.keepDocument(labelId, shipment.document ?? (await port.fetchLabel(account.settings, shipmentId)));
        } catch {
          return exists;
        }
      }
      const { trackingNumber, trackingUrl } = shipment;
      return { kind: 'obtained', labelId, shipmentId, carrierReference, trackingNumber, trackingUrl };
    },

    /**
     * `needs_attention` locks the fulfillment orders for admin and automation exports too: the platform's own hold,
     * with the creation as its handle (docs/decisions/0014-unresolved-creation-platform-hold.md).
     */
    async holdUnresolvedFulfillmentOrders(input: HoldInput): Promise<void> {
      await platformCall(() => holdForUnresolvedCreation(deps, input));
    },

    /** Leaving `needs_attention`: the creation's platform hold goes (before any fulfillment, which a hold refuses). */
    async releaseUnresolvedFulfillmentOrders(input: HoldInput): Promise<void> {
      await platformCall(() => releaseUnresolvedCreationHold(deps, input));
    },

    async updateCreationAttention(input: { creationId: string; attention: StoredAttention }): Promise<void> {
      await updateAttention(em(), { id: input.creationId, attention: input.attention, now: deps.now() });
      // One event per distinct thing learned (a retry of this activity emits nothing new).
      const learned = `${input.attention.shipmentAtCarrier}:${input.attention.carrierReference ?? ''}`;
      await kit.publishCreationUpdated(input.creationId, `attention_updated:${learned}`);
    },
  };
}
