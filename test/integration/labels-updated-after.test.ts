import {
  postFilterScanWindow,
  readLabelPage,
  type KeysetPosition,
  type LabelListFilters,
} from '../../src/db/labels-query';
import { aStoreWithKey } from '../helpers/stores';
import { followPages } from '../helpers/list-pages';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { DAY, HOUR, MINUTE, secondAligned } from '../helpers/time';

// `updated_after` is read in two parts (decision 0104): labels created before the bound and updated since, by the GiST
// index on their span, then those created since. Every page and cursor must be what the one-query shape gave: the
// matching labels in keyset order, computed here from the whole store.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

interface Row {
  id: string;
  createdAt: number;
  seq: number;
  updatedAt: number | null;
  direction: string;
  status: string;
  current: boolean;
}

const COUNT = 3_000;

/**
 * A store of COUNT labels over about 21 days, three per second at each instant (ties broken by insertion order),
 * updated an hour, three days or twenty days after creation, at creation, before it (fixture data), or never.
 */
async function aGeneratedStore(storeId: string, base: number): Promise<Row[]> {
  await app.orm.em.fork().execute(
    `insert into labels (id, store_id, order_gid, order_legacy_id, order_name, order_name_key, direction, kind, status,
       failure_reason, carrier_code, carrier_name, source, created_at, updated_at, current)
     select 'lbl_ua' || ? || lpad(g::text, 6, '0'), ?, 'gid://shopify/Order/' || (1000 + g / 2), (1000 + g / 2)::text,
       '#' || (1000 + g / 2), (1000 + g / 2)::text, case when g % 23 = 0 then 'return' else 'outbound' end, 'shipment',
       case when g % 97 = 0 then 'failed' when g % 31 = 0 then 'pending' else 'ready' end,
       case when g % 97 = 0 then 'not_finalized' end, 'carrier_a', 'Carrier A', 'api', c,
       case g % 9 when 0 then c + interval '1 hour' when 1 then c + interval '3 days' when 2 then c + interval '20 days'
                  when 3 then c when 4 then c - interval '1 hour' when 5 then c + interval '1 hour 500 milliseconds'
                  else null end,
       g % 7 <> 0
       from generate_series(1, ?) g, lateral (select ?::timestamptz + (g / 3) * interval '10 minutes' as c) t`,
    [storeId.slice(-8), storeId, COUNT, new Date(base).toISOString()],
  );
  return storeRows(storeId);
}

/** Every label of the store as the reference reads it. */
async function storeRows(storeId: string): Promise<Row[]> {
  const rows = await app.orm.em.fork().execute<
    Array<{
      id: string;
      created_at: string;
      seq: string;
      updated_at: string | null;
      direction: string;
      status: string;
      current: boolean;
    }>
  >('select id, created_at, seq, updated_at, direction, status, current from labels where store_id = ?', [storeId]);
  return rows.map((r) => ({
    id: r.id,
    createdAt: new Date(r.created_at).getTime(),
    seq: Number(r.seq),
    updatedAt: r.updated_at === null ? null : new Date(r.updated_at).getTime(),
    direction: r.direction,
    status: r.status,
    current: r.current,
  }));
}

type Page = { ids: string[]; lastRead: KeysetPosition; hasMore: boolean };

/** The page the one-query shape read (decision 0102): keyset order, SQL filters, post-filters on a bounded scan. */
function referencePage(rows: readonly Row[], f: LabelListFilters, after: KeysetPosition, limit: number): Page {
  const sign = f.order === 'asc' ? 1 : -1;
  const compare = (a: { createdAt: number; seq: number }, b: { createdAt: number; seq: number }) =>
    sign * (a.createdAt - b.createdAt || a.seq - b.seq);
  const position = after && { createdAt: after.createdAt.getTime(), seq: after.seq };
  const matching = rows
    .filter((r) => f.updatedAfter === undefined || (r.updatedAt !== null && r.updatedAt >= f.updatedAfter.getTime()))
    .filter((r) => f.createdAfter === undefined || r.createdAt >= f.createdAfter.getTime())
    .filter((r) => !position || compare(r, position) > 0)
    .sort(compare);
  const at = (r: Row | undefined): KeysetPosition => (r ? { createdAt: new Date(r.createdAt), seq: r.seq } : after);
  const postFiltered = f.direction !== undefined || f.status !== undefined || f.current !== undefined;
  if (!postFiltered) {
    const ids = matching.slice(0, limit);
    return { ids: ids.map((r) => r.id), lastRead: at(ids.at(-1)), hasMore: matching.length > limit };
  }
  const window = postFilterScanWindow(f, limit);
  const scanned = matching.slice(0, window + 1);
  const ids: string[] = [];
  let consumed = 0;
  for (const r of scanned.slice(0, window)) {
    consumed += 1;
    const kept =
      (f.direction === undefined || r.direction === f.direction) &&
      (f.status === undefined || r.status === f.status) &&
      (f.current === undefined || r.current === f.current);
    if (!kept) continue;
    ids.push(r.id);
    if (ids.length === limit) break;
  }
  return { ids, lastRead: at(consumed > 0 ? scanned[consumed - 1] : undefined), hasMore: scanned.length > consumed };
}

/** Every page from the first until `has_more` is false, by the service and by the reference, side by side. */
async function walk(rows: readonly Row[], filters: LabelListFilters, limit: number) {
  const served: Page[] = [];
  const expected: Page[] = [];
  let after: KeysetPosition = null;
  for (;;) {
    const page = await readLabelPage(app.orm.em.fork(), filters, after, limit);
    served.push({ ids: page.refs.map((r) => r.id), lastRead: page.lastRead, hasMore: page.hasMore });
    expected.push(referencePage(rows, filters, after, limit));
    if (!page.hasMore || served.length > COUNT) break;
    after = page.lastRead;
  }
  return { served, expected };
}

describe('GET /labels with updated_after: the same pages and cursors as the one-query shape', () => {
  let storeId: string;
  let secret: string;
  let rows: Row[];
  let base: number;
  beforeAll(async () => {
    ({ storeId, secret } = await aStoreWithKey(app.orm, { limits: { read_key_per_second: 1_000 } }));
    base = secondAligned(Date.now() - 40 * DAY);
    rows = await aGeneratedStore(storeId, base);
  });

  /** Bounds before, inside and after the store, on a label's creation and update instants and between seconds. */
  const bounds = () => {
    const some = rows[1_234]!;
    const updated = rows.find((r) => r.updatedAt !== null && r.updatedAt > r.createdAt + HOUR)!;
    return [
      base - DAY,
      base + 2 * DAY + 17 * MINUTE,
      base + 9 * DAY + 500,
      some.createdAt,
      updated.updatedAt!,
      updated.createdAt + 1,
      base + 19 * DAY,
      Date.now() + DAY,
    ].map((ms) => new Date(ms));
  };

  it('answers every page alike, both sorts, with and without post-filters and a created_after bound', async () => {
    let compared = 0;
    for (const updatedAfter of bounds()) {
      for (const order of ['asc', 'desc'] as const) {
        const variants: Array<[Partial<LabelListFilters>, number]> = [
          [{}, 250],
          [{}, 37],
          [{ status: 'ready' }, 50],
          [{ direction: 'return' }, 20],
          [{ createdAfter: new Date(base + 5 * DAY) }, 100],
        ];
        for (const [extra, limit] of variants) {
          const { served, expected } = await walk(rows, { storeId, order, updatedAfter, ...extra }, limit);
          expect(served).toEqual(expected);
          compared += served.length;
        }
      }
    }
    // The walks covered many pages, some of them not the first.
    expect(compared).toBeGreaterThan(200);
  });

  it('answers post-filtered pages alike whether the page fills from the first read or needs the rest of the window', async () => {
    // Small pages of a common value fill from the first read, some exactly at its last key; rare values read the rest.
    let compared = 0;
    for (const updatedAfter of [undefined, bounds()[0]!]) {
      for (const order of ['asc', 'desc'] as const) {
        const variants: Array<[Partial<LabelListFilters>, number]> = [
          [{ status: 'ready' }, 8],
          [{ status: 'ready' }, 250],
          [{ current: true }, 16],
          [{ direction: 'return' }, 20],
          [{ status: 'failed' }, 5],
        ];
        for (const [extra, limit] of variants) {
          const { served, expected } = await walk(rows, { storeId, order, updatedAfter, ...extra }, limit);
          expect(served).toEqual(expected);
          compared += served.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(400);
  });

  it('follows the same pages over HTTP, as the sync client polls (sort=created_at, cursors handed back)', async () => {
    // A bound in whole seconds: the API reads `updated_after` to the second.
    const updatedAfter = bounds()[1]!;
    const expected = rows
      .filter((r) => r.updatedAt !== null && r.updatedAt >= updatedAfter.getTime())
      .sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq)
      .map((r) => r.id);
    const pages = await followPages(
      app,
      { authorization: `Bearer ${secret}` },
      `/v1/labels?updated_after=${encodeURIComponent(updatedAfter.toISOString())}&sort=created_at&limit=97`,
    );
    const seen = pages.flatMap((page) => page.ids);
    expect(expected.length).toBeGreaterThan(300);
    expect(seen).toEqual(expected);
  });
});

describe('GET /labels with updated_after: labels in flight at the bound that share an instant', () => {
  // The labels in flight at the bound are read in creation order from the GiST index, which orders by `created_at`
  // alone (decision 0119): a page that ends inside an instant must still hold that instant's labels in insertion order.
  it('ends a page inside an instant where the keyset order does, both sorts, with and without post-filters', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const base = secondAligned(Date.now() - 10 * DAY);
    const bound = new Date(base + DAY);
    // Four instants of 25 labels before the bound, every one updated after it, and 20 labels after it, all updated.
    await app.orm.em.fork().execute(
      `insert into labels (id, store_id, order_gid, order_legacy_id, order_name, order_name_key, direction, kind,
         status, failure_reason, carrier_code, carrier_name, source, created_at, updated_at, current)
       select 'lbl_ti' || ? || lpad(g::text, 4, '0'), ?, 'gid://shopify/Order/' || (5000 + g), (5000 + g)::text,
         '#' || (5000 + g), (5000 + g)::text, 'outbound', 'shipment',
         case when g % 4 = 0 then 'failed' else 'ready' end, case when g % 4 = 0 then 'not_finalized' end,
         'carrier_a', 'Carrier A', 'api', c, c + interval '2 days', true
         from generate_series(1, 120) g,
         lateral (select ?::timestamptz + case when g <= 100 then ((g - 1) / 25) * interval '1 minute'
                                              else interval '1 day 1 hour' + g * interval '1 second' end as c) t`,
      [storeId.slice(-8), storeId, new Date(base).toISOString()],
    );
    const rows = await storeRows(storeId);
    let compared = 0;
    for (const order of ['asc', 'desc'] as const) {
      const variants: Array<[Partial<LabelListFilters>, number]> = [
        [{}, 7],
        [{}, 13],
        [{}, 30],
        [{ status: 'failed' }, 4],
        [{ status: 'ready' }, 9],
      ];
      for (const [extra, limit] of variants) {
        const { served, expected } = await walk(rows, { storeId, order, updatedAfter: bound, ...extra }, limit);
        expect(served).toEqual(expected);
        compared += served.length;
      }
    }
    expect(compared).toBeGreaterThan(60);
  });
});

describe('GET /labels with updated_after and a post-filter: a page reads at most a quarter window', () => {
  // Spec rule 1 lets a post-filtered page come back short with `has_more`; with `updated_after` each label read is a
  // heap page of its own, so the scan stops after 250 labels, not 1,000 (decision 0036).
  it('finds a rare status three pages on with updated_after, on the first page without it', async () => {
    const { storeId, secret } = await aStoreWithKey(app.orm, { limits: { read_key_per_second: 1_000 } });
    const base = secondAligned(Date.now() - 10 * DAY);
    await app.orm.em.fork().execute(
      `insert into labels (id, store_id, order_gid, order_legacy_id, order_name, order_name_key, direction, kind,
         status, failure_reason, carrier_code, carrier_name, source, created_at, updated_at, current)
       select 'lbl_qw' || ? || lpad(g::text, 4, '0'), ?, 'gid://shopify/Order/' || (7000 + g), (7000 + g)::text,
         '#' || (7000 + g), (7000 + g)::text, 'outbound', 'shipment',
         case when g = 600 then 'failed' else 'ready' end, case when g = 600 then 'not_finalized' end,
         'carrier_a', 'Carrier A', 'api', ?::timestamptz + g * interval '1 second',
         ?::timestamptz + g * interval '1 second' + interval '2 days', true
         from generate_series(1, 600) g`,
      [storeId.slice(-8), storeId, new Date(base).toISOString(), new Date(base).toISOString()],
    );
    const pages = async (query: string) =>
      (await followPages(app, { authorization: `Bearer ${secret}` }, `/v1/labels?${query}`, 10)).map((page) => ({
        ids: page.ids,
        hasMore: page.has_more,
      }));
    const failed = `lbl_qw${storeId.slice(-8)}0600`;
    const bound = encodeURIComponent(new Date(base + DAY).toISOString());
    expect(await pages(`status=failed&sort=created_at&limit=10&updated_after=${bound}`)).toEqual([
      { ids: [], hasMore: true },
      { ids: [], hasMore: true },
      { ids: [failed], hasMore: false },
    ]);
    expect(await pages('status=failed&sort=created_at&limit=10')).toEqual([{ ids: [failed], hasMore: false }]);
    expect(await pages(`status=failed&limit=10&updated_after=${bound}`)).toEqual([
      { ids: [failed], hasMore: true },
      { ids: [], hasMore: true },
      { ids: [], hasMore: false },
    ]);
  });
});
