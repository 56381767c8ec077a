import type { Orm } from '../db/orm';
import type { Logger } from '../logger';
import type { StorePlatformPort } from '../platform/port';
import type { CreationRow } from './records';

/** How long an early answer waits for the order's name from the platform before it goes without it. */
const NAME_READ_LIMIT_MS = 2_000;

export interface OrderNameDeps {
  orm: Orm;
  platform: Pick<StorePlatformPort, 'getOrder'>;
  logger: Logger;
}

/**
 * The name of an order known by ID, read from the store platform for an answer given before the creation's own
 * order read recorded it (an early 202; docs/decisions/0033-order-name-in-early-answers.md). Null when the order is
 * not found, the platform fails or takes longer than `NAME_READ_LIMIT_MS`: the answer does not wait for it longer.
 */
export function readOrderName(
  deps: OrderNameDeps,
  input: { storeId: string; orderGid: string },
): Promise<string | null> {
  const read = (async () => {
    const [store] = await deps.orm.em
      .fork()
      .execute<Array<{ domain: string }>>('select domain from stores where id = ?', [input.storeId]);
    if (!store) return null;
    return (await deps.platform.getOrder(store.domain, input.orderGid))?.name ?? null;
  })().catch((error: unknown) => {
    deps.logger.warn({ err: error, store_id: input.storeId }, 'order name for an early answer not read');
    return null;
  });
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), NAME_READ_LIMIT_MS);
    timer.unref();
  });
  return Promise.race([read, limit]).finally(() => clearTimeout(timer));
}

/**
 * The record as answered, with the order's name filled in when the answer comes before the creation recorded it: the
 * name comes from `early` (a read started with the request) or a read now, and is kept on the record so later reads
 * show it too (the creation's own decision writes the same name). Any other record is returned as it is.
 */
export async function withOrderName(
  deps: OrderNameDeps,
  row: CreationRow,
  early: Promise<string | null> | null,
): Promise<CreationRow> {
  if (row.status !== 'processing' || row.order_name !== null || row.order_gid === null) return row;
  const name = await (early ?? readOrderName(deps, { storeId: row.store_id, orderGid: row.order_gid }));
  if (name === null) return row;
  const [kept] = await deps.orm.em
    .fork()
    .execute<Array<{ order_name: string }>>(
      'update label_creations set order_name = coalesce(order_name, ?) where id = ? returning order_name',
      [name, row.id],
    );
  return { ...row, order_name: kept?.order_name ?? name };
}
