import { ImportRejectedError } from '../../src/carriers/port';
import { carrierDefinition } from '../../src/domain/carrier-catalog';
import { finalizeLabel, setPhase } from '../../src/creation/transitions';
import { Store } from '../../src/db/entities/store';
import { labelStatus, updateLabelState } from '../../src/db/labels-repository';
import type { FulfillmentMode } from '../../src/domain/labels';
import { PlatformRequestError } from '../../src/platform/port';
import { platformCall, type CreationKit } from './kit';

/** After the carrier accepted: the batch's outcome, the PDF, the label made ready, fulfilment and the order's tag. */
export function finalizeActivities(kit: CreationKit) {
  const { deps, em } = kit;
  const storeDomain = async (storeId: string) => (await em().findOneOrFail(Store, { id: storeId })).domain;

  return {
    /** Carrier B: whether the batch completed (`ready` with its shipment number) or was refused at import. */
    async checkShipment(input: {
      storeId: string;
      carrierAccountId: string;
      shipmentId: string;
    }): Promise<
      | { status: 'pending' }
      | { status: 'ready'; trackingNumber: string | null; trackingUrl: string | null }
      | { status: 'import_rejected' }
    > {
      const { account, settings } = await kit.accountOf(input.storeId, input.carrierAccountId);
      try {
        const shipment = await deps.carrierFor(account.carrierCode).getShipment(settings, input.shipmentId);
        return shipment.status === 'pending'
          ? { status: 'pending' }
          : { status: 'ready', trackingNumber: shipment.trackingNumber, trackingUrl: shipment.trackingUrl };
      } catch (error) {
        if (error instanceof ImportRejectedError) return { status: 'import_rejected' };
        throw error;
      }
    },

    /** The label's PDF from the carrier, stored for the document endpoints; failures are retried by Temporal. */
    async fetchLabelDocument(input: {
      storeId: string;
      carrierAccountId: string;
      shipmentId: string;
      labelId: string;
    }): Promise<void> {
      const { account, settings } = await kit.accountOf(input.storeId, input.carrierAccountId);
      await kit.keepDocument(
        input.labelId,
        await deps.carrierFor(account.carrierCode).fetchLabel(settings, input.shipmentId),
      );
    },

    /** `finalizing`: the phase, then the label ready with its final tracking number. */
    async finalizeCreationLabel(input: {
      creationId: string;
      storeId: string;
      labelId: string;
      trackingNumber: string | null;
      trackingUrl: string | null;
      weightGrams: number;
    }): Promise<void> {
      const { creationId, ...label } = input;
      await setPhase(em(), { id: creationId, event: 'finalize', now: deps.now() });
      await finalizeLabel(deps.orm, { ...label, now: deps.now() });
    },

    /** Spec "Label `status`": the creation's pending label failed (refused at import, or never finalized). */
    async failCreationLabel(input: {
      storeId: string;
      labelId: string;
      reason: 'carrier_import_rejected' | 'not_finalized';
    }): Promise<void> {
      await updateLabelState(em(), {
        storeId: input.storeId,
        labelId: input.labelId,
        patch: { status: 'failed', failureReason: input.reason },
        now: deps.now(),
      });
    },

    /** A covering label another process created, while this creation waits to adopt it. */
    async labelState(input: { storeId: string; labelId: string }): Promise<{ status: string } | null> {
      const status = await labelStatus(em(), input.storeId, input.labelId);
      return status === null ? null : { status };
    },

    /**
     * Fulfils the target on the store platform with the tracking number. The platform's own refusals (an export holds
     * the fulfillment order, it is no longer open) are reported, never overridden; an unreachable platform is retried.
     */
    async fulfillOrder(input: {
      storeId: string;
      fulfillmentOrderGids: string[];
      mode: Exclude<FulfillmentMode, 'none'>;
      trackingNumber: string | null;
      trackingUrl: string | null;
      carrierCode: string;
    }): Promise<'succeeded' | 'failed'> {
      const domain = await storeDomain(input.storeId);
      try {
        await platformCall(() =>
          deps.platform.fulfill(domain, {
            fulfillmentOrderIds: input.fulfillmentOrderGids,
            trackingNumber: input.trackingNumber,
            trackingUrl: input.trackingUrl,
            carrierName: carrierDefinition(input.carrierCode).name,
            notifyCustomer: input.mode === 'fulfill_and_notify',
          }),
        );
        return 'succeeded';
      } catch (error) {
        if (!(error instanceof PlatformRequestError)) throw error;
        deps.logger.warn({ store_id: input.storeId, code: error.code }, 'platform refused the fulfillment');
        return 'failed';
      }
    },

    /** Adds the carrier account's label tag to the order, when the account has one. */
    async tagOrder(input: {
      storeId: string;
      orderGid: string;
      carrierAccountId: string;
    }): Promise<'succeeded' | 'skipped' | 'failed'> {
      const { account } = await kit.accountOf(input.storeId, input.carrierAccountId);
      if (!account.labelTag) return 'skipped';
      const domain = await storeDomain(input.storeId);
      try {
        await platformCall(() => deps.platform.addOrderTags(domain, input.orderGid, [account.labelTag!]));
        return 'succeeded';
      } catch (error) {
        if (error instanceof PlatformRequestError) return 'failed';
        throw error;
      }
    },
  };
}
