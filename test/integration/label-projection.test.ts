import { insertLabel, labelDocumentUpsert, newLabelWrite, type NewLabel } from '../../src/db/labels-repository';
import { labelRowsJson, readLabelViews, viewsInOrder, type ViewRow } from '../../src/db/labels-query';
import { runPrepared } from '../../src/db/prepared';
import { inTransaction } from '../../src/db/transaction';
import { renderWrite } from '../../src/db/write-statement';
import { deriveCurrentLabels } from '../../src/domain/current-labels';
import { aCarrierAccount, aPlatformId } from '../helpers/labels';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { DAY, MINUTE, SECOND, secondAligned } from '../helpers/time';

// The labels projection (`current`, `supersedes`, `superseded_by`, `current_set`) is written by one mechanism,
// `newLabelWrite`'s parts, used two ways: `insertLabels` (imports, the sandbox, tests) sends them alone, and a creation
// joins them to its own write (its PDF and status, one statement). Both must write the same row and keep the
// projection exact when they run at once.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

/** Writes a label the way a creation does: its parts, and here nothing else, in one statement of one transaction. */
async function writeAsParts(input: NewLabel): Promise<string> {
  return inTransaction(app.orm, async (tx) => {
    const label = await newLabelWrite(tx, input);
    const write = renderWrite({ ctes: label.ctes, main: { sql: 'select 1', values: [] } });
    await tx.execute(write.sql, write.values);
    return label.labelId;
  });
}

interface StoredRow {
  id: string;
  created_at: Date;
  seq: string;
  status: 'ready';
  kind: 'shipment';
  coverage_known: boolean;
  current: boolean;
  supersedes: string[];
  superseded_by: string[];
  current_set: 'ok' | 'ambiguous';
  fos: string[];
}

async function storedLabels(storeId: string): Promise<StoredRow[]> {
  return app.orm.em.fork().execute<StoredRow[]>(
    `select l.id, l.created_at, l.seq, l.status, l.kind, l.coverage_known, l.current, l.supersedes, l.superseded_by,
            l.current_set,
            coalesce(array_agg(f.fulfillment_order_gid) filter (where f.fulfillment_order_gid is not null), '{}') as fos
       from labels l left join label_fulfillment_orders f on f.label_id = l.id
      where l.store_id = ? group by l.id`,
    [storeId],
  );
}

/** A week ago, on a whole second: the labels' creation. */
const T0 = secondAligned(Date.now() - 7 * DAY);

/** A label with every optional field set (amounts with fewer decimals than stored, nested extras). */
function everyField(
  input: Pick<NewLabel, 'storeId' | 'orderId' | 'fulfillmentOrderIds'> & Partial<NewLabel>,
): NewLabel {
  return {
    orderName: '#1001',
    status: 'pending',
    carrierCode: 'carrier_a',
    service: { code: 'a_home', name: 'Home' },
    source: 'api',
    cod: { amount: '499.5', currency: 'CZK', source: 'request' },
    declaredValue: { amount: 1200, currency: 'CZK' },
    trackingNumber: 'A123',
    trackingUrl: 'https://track.example/A123',
    carrierShipmentId: 'shp_1',
    parcels: [{ trackingNumber: 'A123', trackingUrl: 'https://track.example/A123', weightGrams: 1200 }],
    extras: { note: 'x', nested: { a: [1, 2] } },
    createdAt: new Date(T0 + 700),
    updatedAt: new Date(T0 + SECOND),
    ...input,
  };
}

describe('labels projection', () => {
  it('a label written as parts of a larger write is the same row as one insertLabel writes', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const account = await aCarrierAccount(app.orm, storeId);
    const fulfillmentOrderIds = [aPlatformId(), aPlatformId()];
    const base = (orderId: string): NewLabel =>
      everyField({ storeId, carrierAccountId: account.id, orderId, fulfillmentOrderIds, status: 'pending' });
    const viaOrm = (await insertLabel(app.orm.em.fork(), base(aPlatformId()))).id;
    const viaParts = await writeAsParts(base(aPlatformId()));
    const rows = await app.orm.em
      .fork()
      .execute<Array<Record<string, unknown>>>('select * from labels where id in (?, ?) order by seq', [
        viaOrm,
        viaParts,
      ]);
    // Everything but the identity of the row and of its order is the same.
    const comparable = (row: Record<string, unknown>) => {
      const { id: _id, seq: _seq, row_version: _version, order_gid: _order, order_legacy_id: _legacy, ...rest } = row;
      return rest;
    };
    expect(rows).toHaveLength(2);
    expect(comparable(rows[1]!)).toEqual(comparable(rows[0]!));
    expect(rows[1]).toMatchObject({ cod_amount: '499.50', declared_value_amount: '1200.00', current: true });
    expect(new Date(rows[1]!.created_at as string).toISOString()).toBe(new Date(T0).toISOString());
    const coverage = await app.orm.em
      .fork()
      .execute('select count(*)::int as n from label_fulfillment_orders where label_id = ?', [viaParts]);
    expect(coverage[0]!.n).toBe(2);
  });

  it('a PDF stored as part of the write marks the label as having a stored document', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const labelId = await inTransaction(app.orm, async (tx) => {
      const label = await newLabelWrite(tx, {
        storeId,
        orderId: aPlatformId(),
        orderName: '#1002',
        carrierCode: 'carrier_a',
        createdAt: new Date(),
      });
      const document = labelDocumentUpsert({
        labelId: label.labelId,
        pdf: Buffer.from('%PDF-1.7 test'),
        pageSize: 'A6',
        pageCount: 1,
        storedAt: new Date(),
      });
      const write = renderWrite({
        ctes: [...label.ctes, { name: 'document', ...document }],
        main: { sql: 'select 1', values: [] },
      });
      await tx.execute(write.sql, write.values);
      return label.labelId;
    });
    const [row] = await app.orm.em
      .fork()
      .execute(
        'select l.document_stored, d.byte_size from labels l join label_documents d on d.label_id = l.id where l.id = ?',
        [labelId],
      );
    expect(row).toEqual({ document_stored: true, byte_size: 13 });
  });

  it('stays exact when 20 labels of one order are written at once, alone and as parts of a larger write', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const orderId = aPlatformId();
    const fos = [aPlatformId(), aPlatformId(), aPlatformId()];
    // One second for all: insertion order (`seq`) decides which is newer, so no writer may miss another.
    const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const input: NewLabel = {
          storeId,
          orderId,
          orderName: '#1003',
          fulfillmentOrderIds: i % 5 === 4 ? [] : [fos[i % 3]!, ...(i % 4 === 0 ? [fos[(i + 1) % 3]!] : [])],
          carrierCode: 'carrier_a',
          source: 'api',
          createdAt,
        };
        return i % 2 === 0 ? insertLabel(app.orm.em.fork(), input) : writeAsParts(input);
      }),
    );
    const rows = await storedLabels(storeId);
    expect(rows).toHaveLength(20);
    const derived = deriveCurrentLabels(
      rows.map((r) => ({
        id: r.id,
        createdAt: new Date(r.created_at),
        seq: Number(r.seq),
        status: r.status,
        kind: r.kind,
        coverageKnown: r.coverage_known,
        fulfillmentOrderIds: r.fos,
      })),
    );
    for (const r of rows) {
      expect({
        current: r.current,
        supersedes: r.supersedes,
        supersededBy: r.superseded_by,
        currentSet: r.current_set,
      }).toEqual(derived.get(r.id));
    }
    // The newest label is current whatever path wrote it.
    const newest = rows.reduce((a, b) => (Number(b.seq) > Number(a.seq) ? b : a));
    expect(newest.current).toBe(true);
  });
});

describe('a label carried as JSON (a creation read with its labels in one statement)', () => {
  it('reads as the same view as the row the driver returns, every field set', async () => {
    const { storeId } = await aStoreWithKey(app.orm);
    const account = await aCarrierAccount(app.orm, storeId, { carrierCode: 'carrier_a' });
    const orderId = aPlatformId();
    const older = await insertLabel(app.orm.em.fork(), {
      storeId,
      orderId,
      orderName: '#2001',
      fulfillmentOrderIds: [aPlatformId()],
      carrierCode: 'carrier_a',
      createdAt: new Date(T0),
    });
    const label = await insertLabel(
      app.orm.em.fork(),
      everyField({
        storeId,
        orderId,
        fulfillmentOrderIds: [aPlatformId(), aPlatformId()],
        status: 'ready',
        carrierAccountId: account.id,
        cod: { amount: '1250.5', currency: 'CZK', source: 'request' },
        declaredValue: { amount: 99.9, currency: 'EUR' },
        batchId: 'batch_1',
        labelCreationId: 'lcr_carried0000000000000',
        updatedAt: new Date(T0 + DAY + 5 * MINUTE + 123),
        printedCount: 2,
        lastPrintedAt: new Date(T0 + DAY + 6 * MINUTE + 456),
      }),
    );
    const ids = [label.id, older.id];
    const driver = await readLabelViews(app.orm.em.fork(), storeId, ids);
    const carriedRows = (store: string) =>
      runPrepared<{ rows: ViewRow[] }>(app.orm.em.fork(), `select ${labelRowsJson('$1', '$2')} as rows`, [store, ids]);
    const [carried] = await carriedRows(storeId);
    expect(viewsInOrder(carried!.rows, ids)).toEqual(driver);
    expect(driver.map((v) => v.label.id)).toEqual(ids);
    // Another store's labels are not carried.
    const other = await aStoreWithKey(app.orm);
    const [none] = await carriedRows(other.storeId);
    expect(none!.rows).toEqual([]);
    // No IDs (a creation still processing): an empty list, without running the subquery.
    const [empty] = await runPrepared<{ rows: ViewRow[] }>(
      app.orm.em.fork(),
      `select ${labelRowsJson('$1', '$2')} as rows`,
      [storeId, []],
    );
    expect(empty!.rows).toEqual([]);
  });
});
