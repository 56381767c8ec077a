/** What the document endpoints need from the carrier port: a side-effect-free print call for render carriers. */
export interface LabelRenderer {
  renderLabel(input: {
    storeId: string;
    carrierCode: string;
    carrierAccountId: string | null;
    carrierShipmentId: string | null;
    trackingNumber: string | null;
  }): Promise<Uint8Array>;
}

/** A render failure with the spec's `carrier_unavailable` reason. */
export class RenderFailedError extends Error {
  constructor(
    readonly reason: 'timeout' | 'carrier_error' | 'render_error',
    message: string,
  ) {
    super(message);
  }
}
