import { creationRow } from '../../src/api/label-creations/creation-row';
import { labelPageRow, labelRefRow, viewRow } from '../../src/db/label-rows';
import type { LabelRef } from '../../src/db/labels-query';
import { columns, MalformedRowError, parseRows, rowParser } from '../../src/db/rows';
import { shopRow } from '../../src/db/shop-query';
import { firstRow, planned, type ReadPlan } from '../../src/http/read-plan';
import { buildRouter } from '../../src/http/router';
import type { RequestLimiter } from '../../src/http/request-limiter';
import type { AuthContext } from '../../src/http/state';
import type { RouteDefinition } from '../../src/http/route';
import { aViewRow as aLabelRow } from '../helpers/view-row';

/**
 * Typed admitted reads (docs/decisions/1120-typed-admitted-reads.md): the row parsers of the hot reads take the rows
 * both drivers hand over (node-postgres: bigints and numerics as text; JSON: as numbers) and refuse, loudly, a row that
 * is not what its statement declares; a read plan answers from admitted rows or reads on its own.
 */

const AUTH: AuthContext = { storeId: 'st_1', apiKeyId: 'key_1', scopes: ['labels:read'], pinnedVersion: '2026-10-01' };

/** A label's full row as node-postgres hands it over (a `ViewRow`; raw, as the parsers take it). */
function aViewRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...aLabelRow({
      seq: '7',
      source: 'api',
      cod_amount: '1250.50',
      cod_currency: 'HUF',
      cod_source: 'request',
      parcels: [{ trackingNumber: 'T-1', trackingUrl: null, weightGrams: 500 }],
      label_creation_id: 'lc_1',
      created_at: '2026-10-01 12:00:00.123+00',
      coverage: [['gid://shopify/FulfillmentOrder/1', '1']],
      row_version: '42',
    }),
    ...overrides,
  };
}

/** The same row inside JSON (`json_agg`, a creation's `label_rows`): bigints and numerics as numbers. */
const aJsonViewRow = () =>
  aViewRow({ seq: 7, cod_amount: 1250.5, row_version: 42, created_at: '2026-10-01T12:00:00.123+00:00' });

const aRef = (overrides: Record<string, unknown> = {}) => ({
  id: 'lbl_1',
  row_version: '42',
  created_at: '2026-10-01 12:00:00+00',
  seq: '7',
  ...overrides,
});

function aCreationRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'lc_1',
    store_id: 'st_1',
    status: 'succeeded',
    phase: null,
    idempotency_key: 'k-1',
    request_hash: 'h',
    key_bound: true,
    api_key_id: 'key_1',
    order_gid: 'gid://shopify/Order/1001',
    order_legacy_id: '1001',
    order_name: '#1001',
    fulfillment_order_gids: ['gid://shopify/FulfillmentOrder/1'],
    created: true,
    requested: { order_id: '1001', order_name: null },
    resolved: {},
    warnings: [],
    side_effects: {},
    error: null,
    attention: null,
    resolution: null,
    waiting_for: null,
    client_reference: null,
    workflow_id: 'label-creation/st_1/k-1',
    label_ids: ['lbl_1'],
    label_rows: [aJsonViewRow()],
    sent_at: null,
    carrier_account_id: 'ca_1',
    created_at: '2026-10-01 12:00:00+00',
    updated_at: '2026-10-01 12:00:01+00',
    seq: '3',
    ...overrides,
  };
}

const failedLabel = () =>
  aViewRow({
    status: 'failed',
    failure_reason: 'carrier_import_rejected',
    carrier_account_id: null,
    source: null,
    cod_amount: null,
    cod_currency: null,
    cod_source: null,
    tracking_number: null,
    parcels: [],
    label_creation_id: null,
    updated_at: '2026-10-01 12:00:05+00',
    document_not_isolated: null,
    document_redacted: null,
  });

const processing = () =>
  aCreationRow({ status: 'processing', phase: 'sending_to_carrier', created: null, label_ids: [], label_rows: [] });

const aShopRow = (overrides: Record<string, unknown> = {}) => ({
  id: 'st_1',
  name: 'Shop',
  domain: 'shop.myshopify.com',
  api_enabled: true,
  paused_by_support: false,
  subscription_active: true,
  write_access: true,
  key_id: 'key_1',
  key_name: 'main',
  key_scopes: ['shop:read'],
  key_pinned_version: '2026-10-01',
  key_created_at: '2026-10-01T12:00:00Z',
  key_expires_at: null,
  ...overrides,
});

describe('row parsers of the hot reads', () => {
  it.each([
    ['a label reference', labelRefRow, aRef()],
    ['a label reference with a JSON seq', labelRefRow, aRef({ seq: 7 })],
    ['a full label row from node-postgres', viewRow, aViewRow()],
    ['a full label row from JSON', viewRow, aJsonViewRow()],
    ['a label that failed, with nothing optional set', viewRow, failedLabel()],
    ['a creation with its labels', creationRow, aCreationRow()],
    ['a creation still processing, with no labels', creationRow, processing()],
    ['a shop', shopRow, aShopRow()],
    ['a shop whose key expires', shopRow, aShopRow({ key_expires_at: '2026-11-01T00:00:00Z' })],
  ] as Array<[string, (row: unknown, index: number) => unknown, object]>)('takes %s as it is', (_name, parse, row) => {
    expect(parse(row, 0)).toEqual(row);
  });

  it('leaves the admission statement’s own columns behind', () => {
    expect(labelRefRow({ admission: null, read_row: '2', ...aRef() }, 1)).toEqual(aRef());
  });

  it.each([
    ['a missing column', labelRefRow, { id: 'lbl_1', row_version: '42', created_at: 'x' }, 'column seq is undefined'],
    ['a null in a column that has none', labelRefRow, aRef({ id: null }), 'column id is null, expected text'],
    [
      'a number where node-postgres gives text',
      labelRefRow,
      aRef({ row_version: 42 }),
      'column row_version is a number',
    ],
    ['a value outside the vocabulary', viewRow, aViewRow({ status: 'shipped' }), 'column status is a string'],
    [
      'a string count',
      viewRow,
      aViewRow({ printed_count: '1' }),
      'column printed_count is a string, expected an integer',
    ],
    ['an object for a text array', viewRow, aViewRow({ supersedes: {} }), 'column supersedes is an object'],
    ['a text array holding a number', viewRow, aViewRow({ superseded_by: [1] }), 'column superseded_by is an array'],
    ['an array for a JSON object', viewRow, aViewRow({ extras: [] }), 'column extras is an array'],
    ['a timestamp parsed to a Date', viewRow, aViewRow({ created_at: new Date() }), 'column created_at is an object'],
    ['a non-finite number', viewRow, aViewRow({ cod_amount: Number.NaN }), 'column cod_amount is a number'],
    ['an unknown phase', creationRow, aCreationRow({ phase: 'shipping' }), 'column phase is a string'],
    ['labels that are not an array', creationRow, aCreationRow({ label_rows: null }), 'column label_rows is null'],
    [
      'a malformed label inside a creation',
      creationRow,
      aCreationRow({ label_rows: [aViewRow({ seq: null })] }),
      'label row 0: column seq is null',
    ],
    ['a shop without its key’s scopes', shopRow, aShopRow({ key_scopes: undefined }), 'column key_scopes is undefined'],
    ['no row at all', shopRow, null, 'shop row 0 is null, not a row'],
    ['a string for a row', labelRefRow, 'lbl_1', 'label reference row 0 is a string, not a row'],
  ] as Array<[string, (row: unknown, index: number) => unknown, unknown, string]>)(
    'refuses %s, naming the column and never its value',
    (_name, parse, row, message) => {
      let thrown: unknown;
      try {
        parse(row, 0);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(MalformedRowError);
      expect((thrown as Error).message).toContain(message);
      expect((thrown as Error).message).not.toMatch(/shipped|gid:\/\//);
    },
  );

  it('tells a page’s full rows from its references, and refuses a full row with a column missing', () => {
    const ref = aRef();
    const full = aViewRow();
    expect(labelPageRow(ref, 0)).toEqual(ref);
    expect(labelPageRow(full, 1)).toEqual(full);
    // A full row is checked as one: it is not passed off as a reference because its own columns are there.
    const { coverage: _coverage, ...short } = aViewRow();
    expect(() => labelPageRow(short, 2)).toThrow(/label row 2: column coverage is undefined/);
  });

  it('names the row of a page that is malformed', () => {
    expect(() => parseRows(labelRefRow, [aRef(), aRef(), aRef({ seq: undefined })])).toThrow(
      /label reference row 2: column seq is missing|label reference row 2: column seq is undefined/,
    );
  });

  it('checks a 250-row page of full rows, in order', () => {
    const rows = Array.from({ length: 250 }, (_, i) => aViewRow({ id: `lbl_${i}` }));
    expect(parseRows(labelPageRow, rows)).toEqual(rows);
  });
});

describe('row parsers follow their row types', () => {
  it('does not compile a parser that leaves a column out, reads it as another type, or adds one', () => {
    interface Pair {
      id: string;
      count: number;
      state: 'a' | 'b';
    }
    const state = columns.oneOf(['a', 'b']);
    const good = rowParser('pair', (r): Pair => ({
      id: columns.text(r.id, 'id'),
      count: columns.integer(r.count, 'count'),
      state: state(r.state, 'state'),
    }));
    // @ts-expect-error `count` is not read
    const missing = rowParser('pair', (r): Pair => ({ id: columns.text(r.id, 'id'), state: state(r.state, 'state') }));
    const wrongType = rowParser('pair', (r): Pair => ({
      id: columns.text(r.id, 'id'),
      // @ts-expect-error text is not a number
      count: columns.text(r.count, 'count'),
      state: state(r.state, 'state'),
    }));
    const wider = rowParser('pair', (r): Pair => ({
      id: columns.text(r.id, 'id'),
      count: columns.integer(r.count, 'count'),
      // @ts-expect-error any text is not 'a' | 'b'
      state: columns.text(r.state, 'state'),
    }));
    const extra = rowParser('pair', (r): Pair => ({
      id: columns.text(r.id, 'id'),
      count: columns.integer(r.count, 'count'),
      state: state(r.state, 'state'),
      // @ts-expect-error not a column of the row type
      other: columns.text(r.other, 'other'),
    }));
    expect([missing, wrongType, wider, extra]).toHaveLength(4);
    // Columns beside the row type's (the admission statement's own) are left behind.
    expect(good({ id: 'p', count: 1, state: 'b', read_row: '1' }, 0)).toEqual({ id: 'p', count: 1, state: 'b' });
  });

  it.each([
    ['label reference', labelRefRow, aRef()],
    ['label', viewRow, aViewRow()],
    ['label creation', creationRow, aCreationRow()],
    ['shop', shopRow, aShopRow()],
  ] as Array<[string, (row: unknown, index: number) => unknown, Record<string, unknown>]>)(
    'reads every column of a %s row, and names the one that is missing',
    (name, parse, row) => {
      for (const column of Object.keys(row)) {
        const { [column]: _left, ...rest } = row;
        expect(() => parse(rest, 4)).toThrow(`${name} row 4: column ${column} is undefined`);
      }
    },
  );
});

describe('a read plan', () => {
  const input = { params: { label_id: 'lbl_1' }, query: {}, body: undefined };
  function aPlan() {
    const calls: string[] = [];
    const plan: ReadPlan<typeof input, LabelRef, LabelRef | null> = {
      statement: (i, storeId) => ({ text: 'select', values: [storeId, i.params.label_id] }),
      row: labelRefRow,
      answer: (rows, _input, storeId) => {
        calls.push(`answer ${storeId} ${rows.length}`);
        return firstRow(rows);
      },
      fallback: async (_input, auth) => {
        calls.push(`fallback ${auth.storeId}`);
        return null;
      },
    };
    return { plan, calls };
  }

  it('answers from the rows the admission statement carried, checked, without reading on its own', async () => {
    const { plan, calls } = aPlan();
    const read: LabelRef | null = await planned(plan, input, AUTH, [{ read_row: '1', ...aRef() }]);
    expect(read).toEqual(aRef());
    expect(calls).toEqual(['answer st_1 1']);
  });

  it('answers an empty read from the admission statement as found nothing, not as not read', async () => {
    const { plan, calls } = aPlan();
    expect(await planned(plan, input, AUTH, [])).toBeNull();
    expect(calls).toEqual(['answer st_1 0']);
  });

  it('reads on its own when the admission statement carried nothing', async () => {
    const { plan, calls } = aPlan();
    expect(await planned(plan, input, AUTH, null)).toBeNull();
    expect(calls).toEqual(['fallback st_1']);
  });

  it('fails on a malformed admitted row rather than answering from it or reading again on its own', async () => {
    const { plan, calls } = aPlan();
    expect(() => planned(plan, input, AUTH, [aRef({ row_version: null })])).toThrow(MalformedRowError);
    expect(calls).toEqual([]);
  });
});

describe('the router and read plans', () => {
  const options = {
    authorize: async () => undefined,
    limiter: {} as RequestLimiter,
    maxBodyBytes: 1024,
    prefix: '/v1',
  };
  const planOf = () => aPlanRoute();
  function aPlanRoute(): RouteDefinition {
    return {
      method: 'GET',
      path: '/probe',
      operationId: 'probe',
      summary: 'probe',
      tag: 'Probe',
      access: { kind: 'key', scope: 'labels:read' },
      limits: 'read',
      responses: {},
      read: { statement: () => null, row: labelRefRow, answer: firstRow, fallback: async () => null },
      handler: async () => undefined,
    };
  }

  it('starts with a read plan on a key route of a fixed class', () => {
    expect(() => buildRouter([planOf()], options)).not.toThrow();
  });

  it.each([
    ['a public route', { access: { kind: 'public' } }],
    ['a route whose class depends on the request', { limits: { classes: ['read'], classify: () => 'read' } }],
  ])('refuses to start with a read plan on %s', (_name, overrides) => {
    expect(() => buildRouter([{ ...planOf(), ...overrides } as RouteDefinition], options)).toThrow(/has a read plan/);
  });
});
