import fc from 'fast-check';
import { randomToken } from '../../src/ids';
import type { RawRequest } from './raw-http';

/**
 * Generated hostile input for every operation of the served OpenAPI document, which the router's own route table
 * generates (src/api/meta/routes.ts): a route added to the table is exercised without touching the tests. Each input
 * slot of an operation (a path parameter, a query parameter, a request header, a body field, the body as a whole, the
 * transport) gets one request per class of hostile value; fast-check draws the concrete value of each class.
 *
 * Strings headed for the request target or a header are byte strings (one char per byte, latin1), so they can carry
 * raw bytes such as 0xFF that no client library sends.
 */

type Json = Record<string, any>;

export interface Operation {
  method: string;
  /** The document's path template, relative to /v1 (`/labels/{label_id}`). */
  path: string;
  pathParams: string[];
  query: Array<{ name: string; required: boolean; schema: Json }>;
  /** Request headers the operation documents (`Idempotency-Key`, `Prefer`). */
  headers: string[];
  body?: { example: Json; properties: string[]; booleans: string[] };
}

export function operationsOf(document: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const parameters = ((op.parameters ?? []) as Json[]).filter((p) => !p.$ref);
      const content = op.requestBody?.content?.['application/json'];
      const properties = (content?.schema?.properties ?? {}) as Record<string, Json>;
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name as string),
        query: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name as string, required: Boolean(p.required), schema: p.schema as Json })),
        headers: parameters.filter((p) => p.in === 'header').map((p) => p.name as string),
        ...(content
          ? {
              body: {
                example: (content.example ?? {}) as Json,
                properties: Object.keys(properties),
                booleans: Object.keys(properties).filter((name) =>
                  JSON.stringify(properties[name]).includes('"boolean"'),
                ),
              },
            }
          : {}),
      });
    }
  }
  return operations;
}

/** A request before it is put on the wire; every string is already encoded as it is sent. */
interface Draft {
  params: Record<string, string>;
  query: Array<[string, string]>;
  headers: Array<[string, string]>;
  /** `framed`: the bytes are a chunked body as sent, framing included. */
  body?: { bytes: Buffer; contentType: string | null; chunkBytes?: number; framed?: boolean };
  /** Raw bytes put into the path after the prefix. */
  pathInsert?: string;
  noHost?: boolean;
}

/** Plausible values of path parameters, by name; anything else gets `x1`. */
const PATH_EXAMPLES: Record<string, () => string> = {
  label_id: () => `lbl_${randomToken()}`,
  label_creation_id: () => `lcr_${randomToken()}`,
  carrier_account_id: () => `ca_${randomToken()}`,
  order_id: () => '1001',
};

const jsonBytes = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

function baseDraft(operation: Operation, authorization: string): Draft {
  const draft: Draft = {
    params: Object.fromEntries(operation.pathParams.map((name) => [name, PATH_EXAMPLES[name]?.() ?? 'x1'])),
    query: operation.query
      .filter((q) => q.required)
      .map((q) => [q.name, (q.schema.enum as string[] | undefined)?.[0] ?? `lbl_${randomToken()}`]),
    headers: [['Authorization', authorization]],
  };
  // A live creation answers at once (`wait=0`); every keyed write is a new request under a key of its own.
  if (operation.headers.includes('Prefer')) draft.headers.push(['Prefer', 'wait=0']);
  if (operation.headers.includes('Idempotency-Key')) draft.headers.push(['Idempotency-Key', `gen-${randomToken(16)}`]);
  if (operation.body) draft.body = { bytes: jsonBytes(operation.body.example), contentType: 'application/json' };
  return draft;
}

export function toRawRequest(operation: Operation, draft: Draft): { request: RawRequest; target: string } {
  let path = `/v1${operation.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => draft.params[name] ?? '')}`;
  if (draft.pathInsert !== undefined) path = `/v1/${draft.pathInsert}${path.slice(3)}`;
  const query = draft.query.map(([name, value]) => `${name}=${value}`).join('&');
  const target = query ? `${path}?${query}` : path;
  const headers: Array<[string, string]> = [...draft.headers];
  if (draft.body?.contentType !== null && draft.body?.contentType !== undefined)
    headers.push(['Content-Type', draft.body.contentType]);
  if (draft.body?.framed) headers.push(['Transfer-Encoding', 'chunked']);
  return {
    target,
    request: {
      method: operation.method,
      target: Buffer.from(target, 'latin1'),
      headers,
      ...(draft.body ? { body: draft.body.bytes } : {}),
      ...(draft.body?.chunkBytes ? { chunkBytes: draft.body.chunkBytes } : {}),
      ...(draft.noHost ? { noHost: true } : {}),
      ...(draft.body?.framed ? { framed: true } : {}),
    },
  };
}

// ---- hostile values --------------------------------------------------------------------------------------------

const percent = (code: number) => `%${code.toString(16).padStart(2, '0').toUpperCase()}`;
/** A hostile core with plausible text around it, so it is not always the whole value. */
const around = (core: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.constantFrom('', 'ab', '1001', 'lbl_x'), core, fc.constantFrom('', 'cd', ',2'))
    .map(([before, value, after]) => `${before}${value}${after}`);

/** Values for the request target (path and query), percent-encoded or raw as drawn. */
const TARGET_VALUES = {
  nul: around(fc.constant('%00')),
  control: around(fc.integer({ min: 1, max: 31 }).map(percent)),
  // The UTF-8 shape of a lone surrogate (CESU-8), which no decoder may turn into a string with one.
  surrogate: around(fc.constantFrom('%ED%A0%80', '%ED%BF%BF', '%ED%B0%80')),
  raw_byte: around(fc.constantFrom('\xff', '\x80', '\xe9', '\x7f', '\x01')),
  huge: fc.constantFrom(300, 5_000, 17_000).map((n) => 'x'.repeat(n)),
  odd: fc.constantFrom(
    '',
    '%',
    '%zz',
    '%E0%A4',
    encodeURIComponent('Příliš žluťoučký kůň'),
    '-1',
    '1e309',
    'true',
    '%5B%5D',
    '..%2F..',
    '%20',
  ),
};

/** Header values (bytes as latin1 chars). */
const HEADER_VALUES = {
  nul: around(fc.constant('\x00')),
  control: around(fc.constantFrom('\x01', '\x08', '\x1b', '\x7f', '\n', '\rX')),
  latin1: around(fc.constantFrom('\xff', '\xe9\xe8', '\x80\x81\x82\x83\x84\x85\x86\x87')),
  huge: fc.constantFrom(17_000, 40_000).map((n) => 'a'.repeat(n)),
  odd: fc.constantFrom(
    '',
    ' ',
    'auto',
    'wait=61',
    'wait=-1',
    'wait=abc',
    'Bearer',
    'Bearer ',
    'x'.repeat(300),
    '2025-01-01',
  ),
};

/** Deep nesting is spliced into the JSON text: building it as a value would overflow this process's stack too. */
const DEEP = 'deep-marker-';
const deepText = (depth: number, kind: string) =>
  kind === '[' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}null${'}'.repeat(depth)}`;
const spliceDeep = (text: string) =>
  text.replace(new RegExp(`"${DEEP}(\\d+)-([\\[{])"`, 'g'), (_, depth: string, kind: string) =>
    deepText(Number(depth), kind),
  );
const deepValue = fc
  .tuple(fc.constantFrom(33, 2_000, 5_000, 50_000), fc.constantFrom('[', '{'))
  .map(([depth, kind]) => `${DEEP}${depth}-${kind}`);

const lone = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff');
/** JSON values for a body field. */
const BODY_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  deep: deepValue,
  nul: fc.tuple(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 })).map(([a, b]) => `${a}\u0000${b}`),
  surrogate: fc.tuple(fc.string({ maxLength: 4 }), lone, fc.string({ maxLength: 4 })).map((p) => p.join('')),
  huge: fc.constantFrom(65, 256, 1_000, 100_000).map((n) => 'x'.repeat(n)),
  wrong_type: fc.constantFrom(null, true, false, 0, -1, 0.5, 1e308, -1e308, 2 ** 53 + 2, [], {}, [null], { a: 1 }, ''),
  random: fc.jsonValue({ maxDepth: 3 }),
};

const bodyText = (value: unknown) => Buffer.from(spliceDeep(JSON.stringify(value)), 'utf8');

// ---- mutations -------------------------------------------------------------------------------------------------

export interface Mutation {
  /** The slot and class, e.g. `query client_reference: nul`. */
  label: string;
  apply: (draft: Draft) => void;
}

const mutation = (label: string, apply: (draft: Draft) => void): Mutation => ({ label, apply });

function setHeader(draft: Draft, name: string, value: string): void {
  draft.headers = draft.headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
  if (name.toLowerCase() === 'content-type' && draft.body) draft.body.contentType = null;
  draft.headers.push([name, value]);
}

/** One arbitrary mutation per input slot of `operation` and class of hostile value. */
export function mutationsOf(operation: Operation): Array<fc.Arbitrary<Mutation>> {
  const all: Array<fc.Arbitrary<Mutation>> = [];
  for (const name of operation.pathParams) {
    for (const [kind, values] of Object.entries(TARGET_VALUES)) {
      all.push(
        values.map((value) =>
          mutation(`path ${name}: ${kind}`, (d) => {
            d.params[name] = value;
          }),
        ),
      );
    }
  }
  for (const { name } of operation.query) {
    for (const [kind, values] of Object.entries(TARGET_VALUES)) {
      all.push(
        values.map((value) =>
          mutation(`query ${name}: ${kind}`, (d) => {
            d.query = [...d.query.filter(([n]) => n !== name), [name, value]];
          }),
        ),
      );
    }
    all.push(
      fc.tuple(TARGET_VALUES.odd, TARGET_VALUES.nul).map(([a, b]) =>
        mutation(`query ${name}: repeated`, (d) => {
          d.query.push([name, a], [name, b]);
        }),
      ),
    );
  }
  all.push(
    fc
      .tuple(
        fc.constantFrom('zz', '%00', 'a%00b', '%ED%A0%80', 'x'.repeat(2_000), '%5B0%5D', 'api_key%00'),
        TARGET_VALUES.odd,
      )
      .map(([name, value]) =>
        mutation('query (unknown parameter)', (d) => {
          d.query.push([name, value]);
        }),
      ),
  );
  const headers = [
    'Authorization',
    'Service-Version',
    ...operation.headers,
    ...(operation.body ? ['Content-Type'] : []),
  ];
  for (const name of headers) {
    for (const [kind, values] of Object.entries(HEADER_VALUES)) {
      // A credential is tried both as the whole header and as the key after `Bearer `.
      const value =
        name === 'Authorization' ? fc.tuple(fc.constantFrom('', 'Bearer '), values).map((p) => p.join('')) : values;
      all.push(value.map((v) => mutation(`header ${name}: ${kind}`, (d) => setHeader(d, name, v))));
    }
  }
  if (operation.body) all.push(...bodyMutations(operation.body));
  all.push(...transportMutations());
  return all;
}

function bodyMutations(body: NonNullable<Operation['body']>): Array<fc.Arbitrary<Mutation>> {
  const all: Array<fc.Arbitrary<Mutation>> = [];
  // A field's value is tried in the documented example, alone (without the fields that exclude it) and with every
  // boolean switched on (a dry run of POST /labels).
  const bases: Array<[string, Json]> = [
    ['in the example', body.example],
    ['alone', {}],
    ...(body.booleans.length > 0
      ? [
          [
            'with every boolean on',
            { ...body.example, ...Object.fromEntries(body.booleans.map((b) => [b, true])) },
          ] as [string, Json],
        ]
      : []),
  ];
  for (const field of [...body.properties, '(unknown)']) {
    const key =
      field === '(unknown)'
        ? fc.constantFrom('unknown_field', '\u0000', '\ud800', 'x'.repeat(1_000))
        : fc.constant(field);
    for (const [kind, values] of Object.entries(BODY_VALUES)) {
      for (const [where, base] of bases) {
        all.push(
          fc.tuple(key, values).map(([k, value]) =>
            mutation(`body ${field} ${where}: ${kind}`, (d) => {
              d.body = { bytes: bodyText({ ...base, [k]: value }), contentType: 'application/json' };
            }),
          ),
        );
      }
    }
  }
  const whole = (
    kind: string,
    bytes: fc.Arbitrary<Buffer>,
    contentType: fc.Arbitrary<string> = fc.constant('application/json'),
  ) =>
    fc.tuple(bytes, contentType).map(([b, type]) =>
      mutation(`body: ${kind}`, (d) => {
        d.body = { bytes: b, contentType: type };
      }),
    );
  const text = (values: fc.Arbitrary<string>) => values.map((t) => Buffer.from(t, 'utf8'));
  const exampleText = JSON.stringify(body.example);
  all.push(
    whole(
      'malformed',
      text(fc.constantFrom('{', '{"a":', '[', 'nul', '{"a":1,}', "{'a':1}", '\ufeff{}', '{"a":1}{"b":2}', ' ')),
    ),
    whole('wrong root', text(fc.constantFrom('[]', '"text"', '1', 'null', 'true', '[{}]', '""'))),
    whole(
      'invalid UTF-8',
      fc
        .constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80])
        .map((bytes) =>
          Buffer.concat([Buffer.from(`${exampleText.slice(0, -1)},"x":"`), Buffer.from(bytes), Buffer.from('"}')]),
        ),
    ),
    whole(
      'deep root',
      fc
        .tuple(fc.constantFrom(33, 5_000, 100_000), fc.constantFrom('[', '{'))
        .map(([n, k]) => Buffer.from(deepText(n, k))),
    ),
    whole(
      'content type',
      fc.constant(Buffer.from(exampleText)),
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/jsonx',
        'multipart/form-data; boundary=x',
        '*/*',
      ),
    ),
    fc.integer({ min: 1, max: 4_096 }).map((chunkBytes) =>
      mutation('body: chunked', (d) => {
        d.body = { bytes: Buffer.from(exampleText), contentType: 'application/json', chunkBytes };
      }),
    ),
  );
  return all;
}

/** Oversized bodies, request lines and header sections, and raw bytes in the path: on every route. */
function transportMutations(): Array<fc.Arbitrary<Mutation>> {
  return [
    fc
      .tuple(fc.constantFrom(262_145, 300 * 1024, 1024 * 1024), fc.constantFrom(undefined, 1_024, 16 * 1024, 64 * 1024))
      .map(([size, chunkBytes]) =>
        mutation(`transport: body over 256 KB${chunkBytes ? ' (chunked)' : ''}`, (d) => {
          const pad = 'x'.repeat(size);
          d.body = {
            bytes: Buffer.from(JSON.stringify({ pad })),
            contentType: 'application/json',
            ...(chunkBytes ? { chunkBytes } : {}),
          };
        }),
      ),
    fc.constantFrom('\xff', '\x80', '\x00', '\x7f', '\xe9').map((byte) =>
      mutation('transport: raw byte in the path', (d) => {
        d.pathInsert = byte;
      }),
    ),
    fc.constantFrom(16_400, 20_000, 70_000).map((n) =>
      mutation('transport: URL over 16 KB', (d) => {
        d.query.push(['pad', 'x'.repeat(n)]);
      }),
    ),
    fc.constantFrom('zz', '-1', '1;' + 'e'.repeat(20_000), 'ffffffffffffffffff', '').map((size) =>
      mutation('transport: broken chunked framing', (d) => {
        const json = '{"a":1}';
        const bytes = Buffer.from(`${json.length.toString(16)}\r\n${json}\r\n${size}\r\n{}\r\n0\r\n\r\n`);
        d.body = { bytes, contentType: 'application/json', framed: true };
      }),
    ),
    fc.constant(
      mutation('transport: HTTP/1.1 without Host', (d) => {
        d.noHost = true;
      }),
    ),
    fc.constantFrom('foo', '100-continue', 'x'.repeat(200)).map((value) =>
      mutation(`transport: Expect ${value.slice(0, 12)}`, (d) => {
        d.headers.push(['Expect', value]);
      }),
    ),
    fc.tuple(fc.constantFrom(17_000, 40_000), fc.boolean()).map(([n, many]) =>
      mutation(`transport: header section over 16 KB${many ? ' (many headers)' : ''}`, (d) => {
        if (many) for (let i = 0; i < n / 1_000; i += 1) d.headers.push([`X-Pad-${i}`, 'p'.repeat(1_000)]);
        else d.headers.push(['X-Padding', 'p'.repeat(n)]);
      }),
    ),
  ];
}

export function draftWith(operation: Operation, authorization: string, mutations: Mutation[]): Draft {
  const draft = baseDraft(operation, authorization);
  for (const m of mutations) m.apply(draft);
  return draft;
}
