import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The served /v1/openapi.json declares, on every request parameter and body field, the bound the server enforces
 * (OWASP API4:2023, "Unrestricted resource consumption", as Spectral's OWASP ruleset checks it: a string has a
 * `maxLength` or an `enum`/`const`, an integer a `format` and a range, an array `maxItems`), and the server refuses a
 * value just past each declared bound, naming the input, so the document never promises more than the API takes.
 */

type Json = Record<string, any>;

let app: TestApp;
let document: Json;
beforeAll(async () => {
  app = await startTestApp();
  document = (await app.request('GET', '/v1/openapi.json')).body;
});
afterAll(async () => app.close());

interface Input {
  /** `GET /labels query limit`, `POST /labels body cod.amount`. */
  where: string;
  method: string;
  path: string;
  in: 'path' | 'query' | 'header' | 'body';
  /** The parameter's name, or the field's path in the body. */
  name: string[];
  schema: Json;
  operation: Json;
}

/** Every schema a JSON body may hold at `path`, through `anyOf` (nullable fields), items and properties. */
function leaves(schema: Json, path: string[], visit: (schema: Json, path: string[]) => void): void {
  for (const alternative of schema.anyOf ?? schema.oneOf ?? []) leaves(alternative, path, visit);
  if (schema.anyOf || schema.oneOf) return;
  visit(schema, path);
  for (const [name, property] of Object.entries<Json>(schema.properties ?? {}))
    leaves(property, [...path, name], visit);
  if (schema.items) leaves(schema.items, [...path, '0'], visit);
  if (typeof schema.additionalProperties === 'object') leaves(schema.additionalProperties, [...path, '*'], visit);
  if (schema.propertyNames) visit({ ...schema.propertyNames }, [...path, '(key)']);
}

function inputsOf(doc: Json): Input[] {
  const inputs: Input[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      const op = `${method.toUpperCase()} ${path}`;
      for (const parameter of operation.parameters ?? []) {
        const p = parameter.$ref ? doc.components.parameters[parameter.$ref.split('/').pop()] : parameter;
        leaves(p.schema, [p.name], (schema, name) =>
          inputs.push({ where: `${op} ${p.in} ${name.join('.')}`, method, path, in: p.in, name, schema, operation }),
        );
      }
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (body)
        leaves(body, [], (schema, name) => {
          if (name.length > 0)
            inputs.push({ where: `${op} body ${name.join('.')}`, method, path, in: 'body', name, schema, operation });
        });
    }
  }
  return inputs;
}

const types = (schema: Json): string[] => [schema.type ?? []].flat();

/** What the schema leaves unbounded, in the words of OWASP's API4 rules. */
function unbounded(schema: Json): string[] {
  const problems: string[] = [];
  const bounded = schema.enum !== undefined || schema.const !== undefined;
  if (types(schema).includes('string') && !bounded && schema.maxLength === undefined) problems.push('no maxLength');
  if (types(schema).includes('integer')) {
    if (!['int32', 'int64'].includes(schema.format)) problems.push('no int32/int64 format');
    if (schema.minimum === undefined || schema.maximum === undefined) problems.push('no minimum and maximum');
  }
  if (types(schema).includes('array') && schema.maxItems === undefined) problems.push('no maxItems');
  return problems;
}

it('declares a bound on every request parameter and body field (OWASP API4)', () => {
  const inputs = inputsOf(document);
  // Every operation's parameters and bodies are walked: the API has some 60 inputs.
  expect(inputs.length).toBeGreaterThan(60);
  const problems = inputs.flatMap((input) => unbounded(input.schema).map((problem) => `${input.where}: ${problem}`));
  expect(problems).toEqual([]);
});

it('types the query parameters the spec types as integers and booleans as such', () => {
  const query = (path: string, name: string) =>
    document.paths[path].get.parameters.find((p: Json) => p.name === name && p.in === 'query').schema;
  expect(query('/labels', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 250, default: 50 });
  expect(query('/labels', 'current')).toMatchObject({ type: 'boolean' });
  expect(query('/label-creations', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 250 });
  expect(query('/orders/{order_id}/pickup-points', 'limit')).toMatchObject({ type: 'integer', maximum: 50 });
  expect(query('/orders/{order_id}/pickup-points', 'latitude')).toMatchObject({
    type: 'number',
    minimum: -90,
    maximum: 90,
  });
});

/** A value just past the schema's bound, with the bound it breaks; null when the schema declares none to break. */
function pastTheBound(schema: Json): { value: unknown; text: string; bound: string } | null {
  if (types(schema).includes('string') && schema.maxLength !== undefined && schema.enum === undefined) {
    const value = '1'.repeat(schema.maxLength + 1);
    return { value, text: value, bound: `maxLength ${schema.maxLength}` };
  }
  if ((types(schema).includes('integer') || types(schema).includes('number')) && schema.maximum !== undefined)
    return { value: schema.maximum + 1, text: String(schema.maximum + 1), bound: `maximum ${schema.maximum}` };
  if (types(schema).includes('array') && schema.maxItems !== undefined)
    return {
      value: Array.from({ length: schema.maxItems + 1 }, () => 'x'),
      text: '',
      bound: `maxItems ${schema.maxItems}`,
    };
  if (types(schema).includes('boolean')) return { value: 'yes', text: 'yes', bound: 'a boolean' };
  return null;
}

/** `body` with `value` at `path` (creating what is missing on the way). */
function withValueAt(body: Json, path: string[], value: unknown): Json {
  const copy = structuredClone(body);
  let node: any = copy;
  path.forEach((step, index) => {
    if (index === path.length - 1) {
      node[step] = value;
      return;
    }
    const next = path[index + 1]!;
    if (node[step] === null || typeof node[step] !== 'object') node[step] = /^\d+$/.test(next) ? [] : {};
    node = node[step];
  });
  return copy;
}

/** Valid values of body fields a route's request example leaves out, so a probe of a field inside one is about it. */
const ABSENT_FROM_EXAMPLES: Json = { declared_value: { amount: '100.00', currency: 'CZK' } };

const PATH_VALUES: Record<string, string> = {
  label_id: 'lbl_unknown',
  label_creation_id: 'lcr_unknown',
  carrier_account_id: 'ca_unknown',
  order_id: '1001',
  asset: 'reference.js',
};

it('refuses a value just past every declared bound, naming the input', async () => {
  const refused: string[] = [];
  let probed = 0;
  for (const input of inputsOf(document)) {
    const past = pastTheBound(input.schema);
    // A body's map keys (`carrier_options`) and values are checked against the carrier account, not a shape of their
    // own; the bound of their text is probed through the key.
    if (!past || input.name.includes('*')) continue;
    // A key of its own for each request: path probes pass validation and take a unit of the read limit.
    const store = await aStoreWithKey(app.orm);
    const params = Object.fromEntries(
      (input.operation.parameters ?? [])
        .filter((p: Json) => p.in === 'path')
        .map((p: Json) => [p.name, PATH_VALUES[p.name] ?? 'x']),
    );
    const headers: Record<string, string> = {
      ...store.auth,
      'Idempotency-Key': `bounds-${probed}-key`,
      Prefer: 'wait=0',
    };
    const query = new URLSearchParams();
    let body = input.operation.requestBody?.content?.['application/json']?.example as Json | undefined;
    const key = input.name[0]!;
    if (input.in === 'path') params[key] = past.text;
    if (input.in === 'query') query.set(key, past.text);
    if (input.in === 'header') headers[key] = past.text;
    if (input.in === 'body') {
      const path = input.name.map((step) => (step === '(key)' ? '1'.repeat(input.schema.maxLength + 1) : step));
      const parent = input.name[0]!;
      if (input.name.length > 1 && body?.[parent] === undefined && ABSENT_FROM_EXAMPLES[parent])
        body = { ...body, [parent]: ABSENT_FROM_EXAMPLES[parent] };
      body = withValueAt(body ?? {}, path, input.name.at(-1) === '(key)' ? true : past.value);
    }
    const target = input.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => encodeURIComponent(params[name]));
    const res = await app.request(
      input.method.toUpperCase(),
      `/v1${target}${query.size ? `?${query.toString()}` : ''}`,
      {
        headers,
        ...(body ? { body } : {}),
      },
    );
    probed += 1;
    const expected =
      input.in === 'path'
        ? res.status === 404 && res.body.error.code === 'not_found'
        : res.status === 422 &&
          res.body.error.code === 'validation_error' &&
          String(res.body.error.details?.[input.in === 'header' ? 'header' : 'parameter']).startsWith(
            input.in === 'body' ? input.name.filter((s) => s !== '(key)').join('.') : key,
          );
    if (!expected) refused.push(`${input.where} (${past.bound}): ${res.status} ${JSON.stringify(res.body?.error)}`);
  }
  expect(probed).toBeGreaterThan(30);
  expect(refused).toEqual([]);
});
