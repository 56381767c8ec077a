import { CarrierAccount } from '../db/entities/carrier-account';
import { Store } from '../db/entities/store';
import { readLabelView } from '../db/labels-query';
import { recordLabelPrint } from '../db/labels-repository';
import type { Orm } from '../db/orm';
import { DOCUMENT_RETENTION_MS } from '../domain/document-availability';
import { DomainError } from '../domain/errors';
import {
  PlatformAccessLostError,
  PlatformRequestError,
  PlatformUnavailableError,
  type StorePlatformPort,
} from '../platform/port';
import { accessLost, PLATFORM_RETRY_AFTER_SECONDS, shopifyUnavailable } from '../platform/unavailable';

/** Spec `shopify_unavailable`: clients wait this long, whatever the platform itself asked for. */

export interface MarkPrintedDeps {
  orm: Orm;
  platform: Pick<StorePlatformPort, 'addOrderTags'>;
}

/**
 * Spec `POST /labels/{label_id}/printed`: counts one print and adds the carrier account's print tag to the order.
 * The tag goes first: adding a tag twice is harmless, counting a print twice is not, so any platform failure (throttled,
 * refused, order gone, no usable session) answers `shopify_unavailable` and counts nothing.
 */
export async function markLabelPrinted(
  deps: MarkPrintedDeps,
  input: { storeId: string; labelId: string; now: Date },
): Promise<void> {
  const em = deps.orm.em.fork();
  const label = (await readLabelView(em, input.storeId, input.labelId))?.label;
  if (!label) throw new DomainError('not_found');
  if (input.now.getTime() - label.createdAt.getTime() > DOCUMENT_RETENTION_MS) {
    throw new DomainError('document_expired', { details: { label_id: label.id } });
  }
  const account = label.carrierAccountId ? await em.findOne(CarrierAccount, { id: label.carrierAccountId }) : null;
  if (account?.printTag) {
    const store = await em.findOneOrFail(Store, { id: input.storeId });
    try {
      await deps.platform.addOrderTags(store.domain, label.orderGid, [account.printTag]);
    } catch (error) {
      const message = 'The store platform did not accept the print tag; nothing was counted. Try again shortly.';
      if (error instanceof PlatformAccessLostError) throw accessLost(error);
      if (error instanceof PlatformUnavailableError) throw shopifyUnavailable(error, 'order_tags', message);
      if (!(error instanceof PlatformRequestError)) throw error;
      throw new DomainError('shopify_unavailable', {
        message,
        details: { what: 'order_tags', throttled: false },
        retryAfterSeconds: PLATFORM_RETRY_AFTER_SECONDS,
      });
    }
  }
  await recordLabelPrint(em, { storeId: input.storeId, labelId: label.id, now: input.now });
}
