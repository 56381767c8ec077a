import type { EntityManager } from '@mikro-orm/postgresql';
import type { ShipmentResult } from '../../carriers/port';
import { labelDocumentUpsert, newLabelWrite, storeLabelDocument, updateLabelState } from '../../db/labels-repository';
import type { Orm } from '../../db/orm';
import { inTransaction } from '../../db/transaction';
import { renderWrite, type WriteStatement } from '../../db/write-statement';
import type { OrderRef } from '../../domain/creation-decision';
import type { SideEffects } from '../../domain/creation-record';
import type { CodSource } from '../../domain/labels';
import { COD_SENT, succeededWrite } from './outcomes';
import { allowedSql, phaseLiteral } from './phase-sql';

export interface AcceptedShipment {
  creationId: string;
  storeId: string;
  order: OrderRef;
  fulfillmentOrderGids: string[];
  carrierAccountId: string;
  carrierCode: string;
  service: { code: string; name: string };
  cod: { amount: string; currency: string; source: CodSource };
  declaredValue: { amount: string; currency: string } | null;
  weightGrams: number;
  shipment: ShipmentResult;
  now: Date;
}

/**
 * The carrier accepted: the label is recorded at once, with the carrier's PDF when there is one, so nothing depends on
 * the worker surviving until the next step. With `finalize` (the shipment number is final and the PDF is in hand) the
 * label is recorded `ready` and the creation moves to `finalizing`, which saves the workflow the separate step;
 * otherwise it is `pending` until the creation finalizes it. Idempotent: a retry finds the label of this creation and
 * shipment (and leaves finalizing to the workflow).
 */
export async function recordShipment(
  orm: Orm,
  input: AcceptedShipment & { finalize?: boolean; mayExist?: boolean; succeedWith?: SideEffects },
): Promise<{ labelId: string; finalized: boolean; succeeded: boolean }> {
  // `mayExist: false`: the carrier call's first try (`sent_at` was not set), which nothing can have recorded yet; any
  // retry of it finds `sent_at` and looks.
  const [existing] =
    input.mayExist === false
      ? []
      : await orm.em
          .fork()
          .execute<Array<{ id: string }>>(
            'select id from labels where label_creation_id = ? and carrier_shipment_id = ?',
            [input.creationId, input.shipment.shipmentId],
          );
  const finalized = !existing && input.finalize === true && input.shipment.document !== null;
  const succeedWith = finalized ? input.succeedWith : undefined;
  // One transaction of one write (after the label's projection lock and read): the label with its coverage and the
  // order's projection, its PDF, and the creation's own update. Nothing is recorded half.
  return inTransaction(orm, async (tx) => {
    const ctes: WriteStatement['ctes'][number][] = [];
    let labelId = existing?.id;
    if (!labelId) {
      const label = await newLabelWrite(tx, {
        storeId: input.storeId,
        orderId: input.order.id,
        orderName: input.order.name,
        fulfillmentOrderIds: input.fulfillmentOrderGids,
        direction: 'outbound',
        kind: 'shipment',
        status: finalized ? 'ready' : 'pending',
        carrierCode: input.carrierCode,
        carrierAccountId: input.carrierAccountId,
        service: input.service,
        source: 'api',
        cod: input.shipment.cod ? { ...input.shipment.cod, source: input.cod.source } : input.cod,
        declaredValue: input.declaredValue,
        trackingNumber: input.shipment.trackingNumber,
        trackingUrl: input.shipment.trackingUrl,
        carrierShipmentId: input.shipment.shipmentId,
        parcels: [
          {
            trackingNumber: input.shipment.trackingNumber,
            trackingUrl: input.shipment.trackingUrl,
            weightGrams: input.weightGrams,
          },
        ],
        extras: input.shipment.extras,
        labelCreationId: input.creationId,
        createdAt: input.now,
        updatedAt: input.now,
      });
      labelId = label.labelId;
      ctes.push(...label.ctes);
    }
    if (input.shipment.document) {
      const document = labelDocumentUpsert({
        labelId,
        pdf: Buffer.from(input.shipment.document.pdf),
        pageSize: input.shipment.document.pageSize,
        pageCount: input.shipment.document.pages,
        storedAt: input.now,
      });
      ctes.push({ name: 'document', ...document });
    }
    // Nothing follows the label (decision 0024): the creation succeeds in the write that records its label.
    const creation: WriteStatement = succeedWith
      ? succeededWrite({
          id: input.creationId,
          labelIds: [labelId],
          created: true,
          sideEffects: succeedWith,
          codSent: true,
          now: input.now,
        })
      : {
          ctes: [],
          main: {
            sql: `update label_creations set label_ids = array[?]::text[], created = true, updated_at = ?,
                         resolved = ${COD_SENT},
                         phase = case when ? and ${allowedSql('finalize')} then ${phaseLiteral('finalize')} else phase end
                   where id = ?`,
            values: [[labelId], input.now, finalized, input.creationId],
          },
        };
    const write = renderWrite({ ctes: [...ctes, ...creation.ctes], main: creation.main });
    await tx.execute(write.sql, write.values);
    return { labelId, finalized, succeeded: succeedWith !== undefined };
  });
}

/** The stored PDF of a label fetched after the create (carrier A's separate label call, carrier B's batch). */
export async function storeDocument(
  em: EntityManager,
  input: { labelId: string; pdf: Uint8Array; pageSize: string; pages: number; now: Date },
): Promise<void> {
  await storeLabelDocument(em, {
    labelId: input.labelId,
    pdf: Buffer.from(input.pdf),
    pageSize: input.pageSize,
    pageCount: input.pages,
    storedAt: input.now,
  });
}

/** The carrier assigned the final shipment number: the label becomes `ready`. */
export async function finalizeLabel(
  orm: Orm,
  input: {
    storeId: string;
    labelId: string;
    trackingNumber: string | null;
    trackingUrl: string | null;
    weightGrams: number;
    now: Date;
  },
): Promise<void> {
  await updateLabelState(orm.em.fork(), {
    storeId: input.storeId,
    labelId: input.labelId,
    now: input.now,
    patch: {
      status: 'ready',
      trackingNumber: input.trackingNumber,
      trackingUrl: input.trackingUrl,
      parcels: [
        { trackingNumber: input.trackingNumber, trackingUrl: input.trackingUrl, weightGrams: input.weightGrams },
      ],
    },
  });
}
