import { creationIdempotencyKey, preferWaitSeconds } from '../../src/api/labels/create-headers';
import { createLabelBodySchema } from '../../src/api/labels/create-schema';
import { dryRunView } from '../../src/api/labels/dry-run';
import { serializeLabelCreation } from '../../src/api/label-creations/serializer';
import { labelCreationSchema } from '../../src/api/label-creations/schemas';
import { decideCreation } from '../../src/domain/creation-decision';
import { nextActionOf } from '../../src/domain/next-action';
import { ApiError } from '../../src/http/api-error';
import { likelyMeant, validationErrorFrom } from '../../src/http/validation';
import { aContext, aContextLabel, aRequest, NOW } from '../helpers/creation-context';

function details(fn: () => unknown): Record<string, unknown> {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, ...error.details };
    throw error;
  }
  throw new Error('no error');
}

describe('Prefer: wait=N', () => {
  it.each<[string | undefined, number]>([
    [undefined, 20],
    ['', 20],
    ['wait=0', 0],
    ['wait=60', 60],
    ['respond-async, wait=5', 5],
    ['WAIT = 7', 7],
    ['handling=lenient', 20],
  ])('%j -> %s seconds', (header, seconds) => {
    expect(preferWaitSeconds(header)).toBe(seconds);
  });

  it.each(['wait=61', 'wait=-1', 'wait=abc', 'wait=1.5'])('refuses %s with header Prefer', (header) => {
    expect(details(() => preferWaitSeconds(header))).toMatchObject({
      code: 'validation_error',
      header: 'Prefer',
      max: 60,
    });
  });
});

describe('Idempotency-Key on POST /labels', () => {
  it.each<[string | undefined, Record<string, unknown> | null]>([
    ['abcdefgh', null],
    ['x'.repeat(255), null],
    [undefined, { header: 'Idempotency-Key', received: null }],
    ['auto', { header: 'Idempotency-Key', received: 'auto' }],
    ['short', { header: 'Idempotency-Key', min: 8 }],
    ['x'.repeat(256), { header: 'Idempotency-Key', max: 255 }],
  ])('%j', (header, expected) => {
    if (expected === null) expect(creationIdempotencyKey(header)).toBe(header);
    else expect(details(() => creationIdempotencyKey(header))).toMatchObject({ code: 'validation_error', ...expected });
  });
});

describe('the POST /labels body schema', () => {
  const refusal = (body: unknown) => {
    const result = createLabelBodySchema.safeParse(body, { reportInput: true });
    return result.success ? null : validationErrorFrom(result.error, 'body').details;
  };
  it.each<[string, unknown, Record<string, unknown> | null]>([
    ['a minimal body', { order_id: '1' }, null],
    ['an unknown field', { order_id: '1', extra: 1 }, { parameter: 'extra' }],
    ['neither order_id nor order_name', {}, { parameter: 'order_id' }],
    ['both', { order_id: '1', order_name: '#1' }, { parameter: 'order_name' }],
    ['a malformed order ID', { order_id: 'gid://shopify/Product/1' }, { parameter: 'order_id' }],
    [
      'two fulfillment orders',
      { order_id: '1', fulfillment_order_ids: ['1', '2'] },
      { parameter: 'fulfillment_order_ids' },
    ],
    [
      'all_locations with a fulfillment order',
      { order_id: '1', fulfillment_order_ids: ['1'], all_locations: true },
      { parameter: 'all_locations' },
    ],
    ['service_code without an account', { order_id: '1', service_code: 'x' }, { parameter: 'service_code' }],
    ['two parcels', { order_id: '1', parcels: [{ weight_grams: 1 }, { weight_grams: 1 }] }, { parameter: 'parcels' }],
    [
      'a parcel over 1,000,000 g',
      { order_id: '1', parcels: [{ weight_grams: 1_000_001 }] },
      { parameter: 'parcels.0.weight_grams', max: 1_000_000 },
    ],
    ['an amount as a number', { order_id: '1', cod: { amount: 5, currency: 'CZK' } }, { parameter: 'cod.amount' }],
    // Amounts in details are decimal strings with two decimals, as on the rest of the wire.
    [
      'an amount over the maximum',
      { order_id: '1', declared_value: { amount: '10000000', currency: 'CZK' } },
      { parameter: 'declared_value.amount', received: '10000000.00', max: '9999999.99' },
    ],
    [
      'an amount over the maximum with one decimal and leading zeros',
      { order_id: '1', cod: { amount: '0012345678.5', currency: 'CZK' } },
      { parameter: 'cod.amount', received: '12345678.50', max: '9999999.99' },
    ],
    [
      'a negative amount',
      { order_id: '1', cod: { amount: '-1.5', currency: 'CZK' } },
      { parameter: 'cod.amount', received: '-1.50', min: '0.00' },
    ],
    ['the maximum amount', { order_id: '1', cod: { amount: '9999999.99', currency: 'CZK' } }, null],
    ['the minimum amount', { order_id: '1', cod: { amount: '0', currency: 'CZK' } }, null],
    [
      'three decimals',
      { order_id: '1', cod: { amount: '1.001', currency: 'CZK' } },
      { parameter: 'cod.amount', received: '1.001' },
    ],
    ['a lowercase currency', { order_id: '1', cod: { amount: '1', currency: 'czk' } }, { parameter: 'cod.currency' }],
    ['create_new without replaces', { order_id: '1', on_existing: 'create_new' }, { parameter: 'replaces' }],
    ['create_new with replaces []', { order_id: '1', on_existing: 'create_new', replaces: [] }, null],
    ['replaces without create_new', { order_id: '1', replaces: ['lbl_1'] }, { parameter: 'replaces' }],
    [
      'replaces with another kind of ID',
      { order_id: '1', on_existing: 'create_new', replaces: ['ca_1'] },
      { parameter: 'replaces.0' },
    ],
    ['include with dry_run', { order_id: '1', include: ['document'], dry_run: true }, { parameter: 'include' }],
    [
      'include with another value',
      { order_id: '1', include: ['pdf'] },
      { parameter: 'include.0', allowed: ['document'] },
    ],
    ['an unknown mode', { order_id: '1', on_existing: 'replace' }, { parameter: 'on_existing' }],
    [
      'a 65-character client reference',
      { order_id: '1', client_reference: 'x'.repeat(65) },
      { parameter: 'client_reference', max: 64 },
    ],
    ['a 64-character client reference', { order_id: '1', client_reference: 'x'.repeat(64) }, null],
    ['an object option value', { order_id: '1', carrier_options: { a: { b: 1 } } }, { parameter: 'carrier_options.a' }],
  ])('%s', (_name, body, expected) => {
    const got = refusal(body);
    if (expected === null) expect(got).toBeNull();
    else expect(got).toMatchObject(expected);
  });

  // What a first request gets wrong most (issue 57): the message says what was meant.
  const message = (body: unknown) => {
    const result = createLabelBodySchema.safeParse(body, { reportInput: true });
    return result.success ? null : validationErrorFrom(result.error, 'body', createLabelBodySchema).message;
  };
  it.each<[string, unknown, string]>([
    ['camelCase of a field', { orderId: '1' }, 'Unknown field `orderId`; did you mean `order_id`?'],
    ['one letter off', { order_id: '1', dry_rn: true }, 'Unknown field `dry_rn`; did you mean `dry_run`?'],
    [
      'a nested field',
      { order_id: '1', cod: { amount: '1', currency: 'CZK', curency: 'CZK' } },
      'did you mean `currency`?',
    ],
    ['nothing like a field', { order_id: '1', colour: 'red' }, 'Unknown field `colour`.'],
    ['an order name as the ID', { order_id: '#1022' }, '"#1022" looks like an order name: send it as order_name'],
  ])('%s', (_name, body, expected) => {
    expect(message(body)).toContain(expected);
  });
});

describe('likelyMeant', () => {
  it.each<[string, string[], string | null]>([
    ['orderId', ['order_id', 'order_name'], 'order_id'],
    ['ORDER-NAME', ['order_id', 'order_name'], 'order_name'],
    ['dryrun', ['dry_run'], 'dry_run'],
    ['fulfilment', ['fulfillment'], 'fulfillment'],
    ['limt', ['limit'], 'limit'],
    ['cod2', ['cod', 'cod1'], null],
    ['abc', ['abd', 'abe'], null],
    ['something', ['order_id'], null],
    ['', [], null],
  ])('%j among %j', (unknown, known, expected) => {
    expect(likelyMeant(unknown, known)).toBe(expected);
  });
});

describe('nextActionOf', () => {
  it.each<[Parameters<typeof nextActionOf>[0], string]>([
    [{ status: 'validated', errorNextAction: null, labelAvailabilities: [] }, 'none'],
    [{ status: 'processing', errorNextAction: null, labelAvailabilities: [] }, 'poll'],
    [{ status: 'needs_attention', errorNextAction: null, labelAvailabilities: [] }, 'manual_check'],
    [{ status: 'abandoned', errorNextAction: null, labelAvailabilities: [] }, 'none'],
    [{ status: 'failed', errorNextAction: 'retry_later', labelAvailabilities: [] }, 'retry_later'],
    [{ status: 'failed', errorNextAction: null, labelAvailabilities: [] }, 'fix_and_retry'],
    [{ status: 'succeeded', errorNextAction: null, labelAvailabilities: ['available'] }, 'fetch_document'],
    [
      { status: 'succeeded', errorNextAction: null, labelAvailabilities: ['available', 'pending'] },
      'wait_for_document',
    ],
    [{ status: 'succeeded', errorNextAction: null, labelAvailabilities: ['carrier_excluded'] }, 'none'],
  ])('%j -> %s', (input, expected) => {
    expect(nextActionOf(input)).toBe(expected);
  });
});

describe('serializeLabelCreation', () => {
  it('writes a dry run that the response schema accepts', () => {
    const request = aRequest({ dry_run: true, client_reference: 'r1' });
    const decision = decideCreation(aContext(), request, NOW);
    if (decision.kind === 'refuse') throw new Error('expected a decision');
    const wire = serializeLabelCreation(dryRunView(decision, request, []), { baseUrl: 'https://api.example' });
    expect(labelCreationSchema.parse(wire)).toEqual(wire);
    expect(wire).toMatchObject({ id: null, url: null, status: 'validated', would: 'create', client_reference: 'r1' });
    expect(wire.resolved.cod?.to_carrier.state).toBe('predicted');
  });

  it('writes a stored creation: url, phase only while processing, error with its doc_url, attention', () => {
    const request = aRequest();
    const base = dryRunView(
      {
        kind: 'return_existing',
        order: { id: 'g', legacyId: '1', name: '#1' },
        targetFulfillmentOrderIds: [],
        labelIds: [aContextLabel('lbl_1').id],
        warnings: [],
      },
      request,
      [],
    );
    const failed = serializeLabelCreation(
      {
        ...base,
        id: 'lcr_1',
        status: 'failed',
        phase: 'preparing',
        dryRun: false,
        would: 'create',
        error: {
          code: 'carrier_rejected',
          message: 'refused',
          details: { reason: 'other', retry: 'after_fix', next_action: 'fix_and_retry' },
        },
        createdAt: new Date('2026-11-01T10:00:00.500Z'),
        updatedAt: new Date('2026-11-01T10:00:05Z'),
        attention: {
          reason: 'carrier_timeout',
          shipmentAtCarrier: 'unknown',
          carrier: { code: 'carrier_a', name: 'Carrier A', accountId: 'ca_1' },
          carrierReference: null,
          carrierNote: null,
          sentAt: new Date('2026-11-01T10:00:01Z'),
          resolveAllowedAt: new Date('2026-11-01T10:15:01Z'),
        },
      },
      { baseUrl: 'https://api.example' },
    );
    expect(labelCreationSchema.parse(failed)).toEqual(failed);
    expect(failed).toMatchObject({
      url: 'https://api.example/v1/label-creations/lcr_1',
      phase: null,
      would: null,
      next_action: 'fix_and_retry',
      error: { code: 'carrier_rejected', doc_url: 'https://api.example/v1/docs/errors#carrier_rejected' },
      attention: {
        sent_at: '2026-11-01T10:00:01Z',
        resolve_allowed_at: '2026-11-01T10:15:01Z',
        shipment_at_carrier: 'unknown',
      },
      created_at: '2026-11-01T10:00:00Z',
    });
  });
});
