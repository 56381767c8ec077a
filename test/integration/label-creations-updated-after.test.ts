import { createLabelBodySchema } from '../../src/api/labels/create-schema';
import { readCreationPage, type CreationListFilters } from '../../src/creation/records';
import { normalizeCreationRequest, requestedWire } from '../../src/domain/creation-request';
import { aStoreWithKey } from '../helpers/stores';
import { followPages } from '../helpers/list-pages';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { DAY, HOUR, MINUTE, secondAligned } from '../helpers/time';

// `GET /label-creations?updated_after` is read in two parts (decisions 0104, 0119): the creations created at or after
// the bound, then those created before it and updated since, newest first from the GiST index on their span and
// `created_at`. Every page and cursor must be the matching creations in list order, computed here from the whole store.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

interface Row {
  id: string;
  createdAt: number;
  seq: number;
  updatedAt: number;
  status: string;
}

const COUNT = 1_500;

/** The request every generated creation echoes, as the service writes it (its order ID set per row). */
const REQUESTED = requestedWire(normalizeCreationRequest(createLabelBodySchema.parse({ order_id: '1' })));

/**
 * A store of COUNT creations over about 10 days, three at each instant (ties broken by insertion order), updated three
 * seconds, two days or six days after creation, at creation or before it (fixture data); two of an instant's three
 * alike, so that a page can end between creations of one instant in flight at the bound.
 */
async function aGeneratedStore(storeId: string, base: number): Promise<Row[]> {
  await app.orm.em.fork().execute(
    `insert into label_creations (id, store_id, status, idempotency_key, request_hash, order_gid, order_legacy_id,
       order_name, requested, created_at, updated_at)
     select 'lcr_ua' || ? || lpad(g::text, 6, '0'), ?, case when g % 13 = 0 then 'failed' else 'succeeded' end,
       'key-ua-' || g, 'h', 'gid://shopify/Order/' || (1000 + g), (1000 + g)::text, '#' || (1000 + g),
       ?::jsonb || jsonb_build_object('order_id', 'gid://shopify/Order/' || (1000 + g)), c,
       c + case (g / 3 + g % 2) % 5 when 0 then interval '3 seconds' when 1 then interval '2 days' when 2 then interval '6 days'
                      when 3 then interval '0' else interval '-1 hour' end
       from generate_series(1, ?) g, lateral (select ?::timestamptz + (g / 3) * interval '10 minutes' as c) t`,
    [storeId.slice(-8), storeId, JSON.stringify(REQUESTED), COUNT, new Date(base).toISOString()],
  );
  const rows = await app.orm.em
    .fork()
    .execute<Array<{ id: string; created_at: string; seq: string; updated_at: string; status: string }>>(
      'select id, created_at, seq, updated_at, status from label_creations where store_id = ?',
      [storeId],
    );
  return rows.map((r) => ({
    id: r.id,
    createdAt: new Date(r.created_at).getTime(),
    seq: Number(r.seq),
    updatedAt: new Date(r.updated_at).getTime(),
    status: r.status,
  }));
}

type Page = { ids: string[]; hasMore: boolean };

/** The matching creations, newest first (same-instant ones in reverse insertion order), after `after`. */
function matching(rows: readonly Row[], f: CreationListFilters, after: Row | null): Row[] {
  const newestFirst = (a: Row, b: Row) => b.createdAt - a.createdAt || b.seq - a.seq;
  return rows
    .filter((r) => f.updatedAfter === undefined || r.updatedAt >= f.updatedAfter.getTime())
    .filter((r) => f.status === undefined || r.status === f.status)
    .filter((r) => f.createdAfter === undefined || r.createdAt >= f.createdAfter.getTime())
    .filter((r) => !after || newestFirst(after, r) < 0)
    .sort(newestFirst);
}

/** Every page from the first until `hasMore` is false, by the service and by the reference, side by side. */
async function walk(rows: readonly Row[], f: CreationListFilters, limit: number) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const served: Page[] = [];
  const expected: Page[] = [];
  let after: Row | null = null;
  for (;;) {
    const cursor = after && { createdAt: new Date(after.createdAt), seq: after.seq };
    const page = await readCreationPage(app.orm.em.fork(), f, cursor, limit);
    served.push({ ids: page.rows.map((r) => r.id), hasMore: page.hasMore });
    const all = matching(rows, f, after);
    expected.push({ ids: all.slice(0, limit).map((r) => r.id), hasMore: all.length > limit });
    if (!page.hasMore || served.length > COUNT) break;
    after = byId.get(page.rows.at(-1)!.id)!;
  }
  return { served, expected };
}

describe('GET /label-creations with updated_after: the matching creations, newest first, on every page', () => {
  let storeId: string;
  let secret: string;
  let rows: Row[];
  let base: number;
  beforeAll(async () => {
    ({ storeId, secret } = await aStoreWithKey(app.orm, { limits: { read_key_per_second: 1_000 } }));
    base = secondAligned(Date.now() - 20 * DAY);
    rows = await aGeneratedStore(storeId, base);
  });

  it('answers every page alike for bounds before, inside and after the store, alone and with other filters', async () => {
    const updated = rows.find((r) => r.updatedAt > r.createdAt + DAY)!;
    const bounds = [
      base - DAY,
      base + 2 * DAY + 17 * MINUTE,
      base + 4 * DAY + 500,
      updated.updatedAt,
      updated.createdAt + 1,
      base + 9 * DAY + HOUR,
      Date.now() + DAY,
    ].map((ms) => new Date(ms));
    let compared = 0;
    for (const updatedAfter of bounds) {
      const variants: Array<[Partial<CreationListFilters>, number]> = [
        [{}, 100],
        [{}, 7],
        [{ status: 'failed' }, 10],
        [{ createdAfter: new Date(base + 3 * DAY) }, 50],
      ];
      for (const [extra, limit] of variants) {
        const { served, expected } = await walk(rows, { storeId, updatedAfter, ...extra }, limit);
        expect(served).toEqual(expected);
        compared += served.length;
      }
    }
    // The walks covered many pages, some of them not the first.
    expect(compared).toBeGreaterThan(200);
  });

  it('follows the same pages over HTTP, cursors handed back', async () => {
    // A bound in whole seconds: the API reads `updated_after` to the second.
    const updatedAfter = new Date(base + 5 * DAY + 3 * HOUR);
    const expected = matching(rows, { storeId, updatedAfter }, null).map((r) => r.id);
    const pages = await followPages(
      app,
      { authorization: `Bearer ${secret}` },
      `/v1/label-creations?updated_after=${encodeURIComponent(updatedAfter.toISOString())}&limit=41`,
    );
    const seen = pages.flatMap((page) => page.ids);
    expect(expected.length).toBeGreaterThan(300);
    expect(seen).toEqual(expected);
  });
});
