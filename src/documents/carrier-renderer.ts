import { accountSettings } from '../carriers/account-settings';
import { CarrierTimeoutError, CarrierUnavailableError, type CarrierPort } from '../carriers/port';
import { CarrierAccount } from '../db/entities/carrier-account';
import type { Orm } from '../db/orm';
import { RenderFailedError, type LabelRenderer } from './ports';

/** Renders through the carrier port's `fetchLabel`, addressed by the label's carrier account and shipment. */
export function carrierRenderer(deps: { orm: Orm; carrierFor: (carrierCode: string) => CarrierPort }): LabelRenderer {
  return {
    async renderLabel(input) {
      if (!input.carrierAccountId)
        throw new RenderFailedError('render_error', 'the label has no carrier account to render with');
      const account = await deps.orm.em
        .fork()
        .findOne(CarrierAccount, { id: input.carrierAccountId, storeId: input.storeId });
      const shipmentId = input.carrierShipmentId ?? input.trackingNumber;
      if (!account || !shipmentId)
        throw new RenderFailedError('render_error', 'the label cannot be addressed at the carrier');
      try {
        const document = await deps.carrierFor(input.carrierCode).fetchLabel(accountSettings(account), shipmentId);
        return document.pdf;
      } catch (error) {
        if (error instanceof CarrierTimeoutError) throw new RenderFailedError('timeout', error.message);
        if (error instanceof CarrierUnavailableError)
          throw new RenderFailedError(error.reason === 'timeout' ? 'timeout' : error.reason, error.message);
        throw new RenderFailedError('carrier_error', (error as Error).message);
      }
    },
  };
}
