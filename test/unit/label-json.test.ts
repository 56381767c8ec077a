import { createLabelJson } from '../../src/api/labels/label-json';
import { serializeLabel } from '../../src/api/labels/serializer';
import { toView, type LabelRef, type ViewRow } from '../../src/db/labels-query';
import { aViewRow } from '../helpers/view-row';

const CREATED = '2026-10-01 12:00:00+00';
const NOW = new Date('2026-10-02T00:00:00Z');
const DAY = 86_400_000;
const BASE = 'https://labels.example';

const aRow = (id: string, overrides: Partial<ViewRow> = {}): ViewRow =>
  aViewRow({ id, tracking_number: `T-${id}`, created_at: CREATED, ...overrides });

const refOf = (row: ViewRow): LabelRef => ({
  id: row.id,
  row_version: String(row.row_version),
  created_at: row.created_at,
  seq: row.seq,
});

/** A store of rows standing in for PostgreSQL, counting the IDs each full read asked for. */
function aDatabase(rows: ViewRow[]) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const reads: string[][] = [];
  return {
    reads,
    set: (row: ViewRow) => byId.set(row.id, row),
    remove: (id: string) => byId.delete(id),
    ref: (id: string) => refOf(byId.get(id)!),
    readRows: async (storeId: string, ids: string[]) => {
      reads.push([...ids]);
      return ids.flatMap((id) => {
        const row = byId.get(id);
        return row && row.store_id === storeId ? [row] : [];
      });
    },
  };
}

const context = (overrides: Partial<{ baseUrl: string; now: Date }> = {}) => ({
  storeId: 'st_1',
  baseUrl: BASE,
  now: NOW,
  ...overrides,
});

describe('label JSON by reference', () => {
  it('writes what the one serializer writes, and reads a label again only when something it depends on moved', async () => {
    const db = aDatabase([aRow('lbl_1')]);
    const json = createLabelJson({ maxEntries: 10, readRows: db.readRows });
    const [first] = await json.of([db.ref('lbl_1')], context());
    expect(JSON.parse(first!)).toEqual(serializeLabel(toView(aRow('lbl_1')), { baseUrl: BASE, now: NOW }));
    expect(await json.of([db.ref('lbl_1')], context())).toEqual([first]);
    expect(db.reads).toEqual([['lbl_1']]);

    // A new row version (any update of the row) is read and written again.
    db.set(aRow('lbl_1', { status: 'failed', failure_reason: 'not_finalized', row_version: '2' }));
    const [failed] = await json.of([db.ref('lbl_1')], context());
    expect(JSON.parse(failed!)).toMatchObject({ status: 'failed', failure_reason: 'not_finalized' });
    // Another base URL (no PUBLIC_BASE_URL, another Host) is written again for it.
    const [other] = await json.of([db.ref('lbl_1')], context({ baseUrl: 'http://other.example' }));
    expect(JSON.parse(other!).document.url).toBe('http://other.example/v1/labels/lbl_1/document');
    expect(db.reads).toEqual([['lbl_1'], ['lbl_1'], ['lbl_1']]);
  });

  it('writes the document again once its age changes the answer (60 days), then keeps the expired one', async () => {
    const db = aDatabase([aRow('lbl_1')]);
    const json = createLabelJson({ maxEntries: 10, readRows: db.readRows });
    const lastMoment = new Date(new Date('2026-10-01T12:00:00Z').getTime() + 60 * DAY);
    const availability = async (now: Date) => JSON.parse((await json.of([db.ref('lbl_1')], context({ now })))[0]!);
    expect((await availability(NOW)).document.availability).toBe('available');
    expect((await availability(lastMoment)).document.availability).toBe('available');
    expect(db.reads).toHaveLength(1);
    expect((await availability(new Date(lastMoment.getTime() + 1000))).document.availability).toBe('expired');
    expect((await availability(new Date(lastMoment.getTime() + 90 * DAY))).document.availability).toBe('expired');
    expect(db.reads).toHaveLength(2);
  });

  it('keeps the order of the references, reads only the misses in one statement, and leaves out deleted labels', async () => {
    const db = aDatabase(['lbl_1', 'lbl_2', 'lbl_3', 'lbl_4'].map((id) => aRow(id)));
    const json = createLabelJson({ maxEntries: 10, readRows: db.readRows });
    await json.of([db.ref('lbl_2'), db.ref('lbl_4')], context());
    const refs = ['lbl_4', 'lbl_3', 'lbl_2', 'lbl_1'].map(db.ref);
    db.remove('lbl_3');
    const texts = await json.of(refs, context());
    expect(texts.map((t) => JSON.parse(t).id)).toEqual(['lbl_4', 'lbl_2', 'lbl_1']);
    expect(db.reads).toEqual([
      ['lbl_2', 'lbl_4'],
      ['lbl_3', 'lbl_1'],
    ]);
  });

  it('writes full rows (a page after a cursor) from themselves and keeps them for later reads by reference', async () => {
    const db = aDatabase([aRow('lbl_1'), aRow('lbl_2')]);
    const json = createLabelJson({ maxEntries: 10, readRows: db.readRows });
    const texts = await json.of([aRow('lbl_2'), aRow('lbl_1')], context());
    expect(texts.map((t) => JSON.parse(t).id)).toEqual(['lbl_2', 'lbl_1']);
    expect(await json.of([db.ref('lbl_1'), db.ref('lbl_2')], context())).toEqual([texts[1], texts[0]]);
    expect(db.reads).toEqual([]);
  });

  it('never answers with another store’s label, whatever is in memory', async () => {
    const db = aDatabase([aRow('lbl_1')]);
    const json = createLabelJson({ maxEntries: 10, readRows: db.readRows });
    // Store st_2 cannot obtain a reference to st_1's label (the reads filter by store); a forged one reads nothing.
    expect(await json.of([db.ref('lbl_1')], { ...context(), storeId: 'st_2' })).toEqual([]);
  });

  it('holds at most maxEntries labels, dropping the least recently written first', async () => {
    const db = aDatabase(['lbl_1', 'lbl_2', 'lbl_3'].map((id) => aRow(id)));
    const json = createLabelJson({ maxEntries: 2, readRows: db.readRows });
    await json.of([db.ref('lbl_1')], context());
    await json.of([db.ref('lbl_2')], context());
    await json.of([db.ref('lbl_3')], context());
    db.reads.length = 0;
    await json.of(['lbl_2', 'lbl_3'].map(db.ref), context());
    expect(db.reads).toEqual([]);
    await json.of([db.ref('lbl_1')], context());
    expect(db.reads).toEqual([['lbl_1']]);
  });
});
