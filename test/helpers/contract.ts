import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * The contract check every integration test answer goes through: the status must be documented for the operation
 * the request reached, the headers the document declares for that response must be present (when required) and
 * match their schemas, and the body must have a documented content type and, for JSON, match its schema. Schemas
 * are the served document's own, validated by ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */

type Json = Record<string, any>;

export interface Answer {
  method: string;
  /** Absolute URL of the request. */
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

export interface Contract {
  /** Throws ContractViolation when the answer is not what the document says. */
  check: (answer: Answer) => void;
}

/**
 * Served outside the API for operators and load balancers (`/healthz`, `/readyz`, `/metrics`): not part of the
 * merchant contract the document describes, so their own tests assert them.
 */
export const OPERATIONAL_PATHS: readonly string[] = ['/healthz', '/readyz', '/metrics'];

/**
 * Shopify's own endpoints (`/shopify/install`, `/shopify/callback`, `/shopify/webhooks`): answered to Shopify and the
 * merchant's browser, documented beside the API in docs/shopify.md ("Endpoints Shopify calls"), asserted by
 * test/integration/shopify-app.test.ts.
 */
export const SHOPIFY_PATH_PREFIX = '/shopify/';

// Spec "Errors" and "Authentication" 2: answers a request gets when it reaches no documented operation.
const UNKNOWN_PATH_STATUSES = [404, 400, 422];
const OTHER_METHOD_STATUSES = [405, 400, 422];

const DOCUMENT_ID = 'https://contract.invalid/openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** JSON pointer of `segments` as a URI fragment ajv resolves against the added document. */
function pointer(segments: readonly string[]): string {
  return segments.map((s) => `/${encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
}

interface Operation {
  template: string;
  regex: RegExp;
  methods: Set<string>;
  concrete: boolean;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 8)
    .map((e) => `    ${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('\n');
}

function excerpt(text: string): string {
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

/** Builds the check for `document` as served by the service at `origin` (scheme, host and port). */
export function contractOf(document: Json, origin: string): Contract {
  const bodies = new Ajv2020({ strict: false, allErrors: true });
  addFormats(bodies);
  bodies.addSchema(document, DOCUMENT_ID);
  // Header values are strings on the wire; `Retry-After: 5` is an integer header.
  const headerValues = new Ajv2020({ strict: false, allErrors: true, coerceTypes: true });
  addFormats(headerValues);
  headerValues.addSchema(document, DOCUMENT_ID);

  const validator = (ajv: Ajv2020, segments: readonly string[]): ValidateFunction => {
    const validate = ajv.getSchema(`${DOCUMENT_ID}#${pointer(segments)}`);
    if (!validate) throw new ContractViolation(`the document has no schema at ${segments.join(' / ')}`);
    return validate;
  };
  const resolve = (value: Json): { value: Json; segments: string[] | null } => {
    if (typeof value?.$ref !== 'string') return { value, segments: null };
    const segments = value.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
    return { value: segments.reduce<Json>((node, s) => node?.[s], document), segments };
  };

  const serverUrl = new URL((document.servers?.[0]?.url as string | undefined) ?? '/', `${origin}/`);
  const basePath = serverUrl.pathname.replace(/\/+$/, '');
  const operations: Operation[] = Object.entries(document.paths ?? {}).map(([template, item]) => ({
    template,
    regex: new RegExp(
      `^${template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
        .join('')}$`,
    ),
    methods: new Set(Object.keys(item as Json).filter((k) => METHODS.includes(k))),
    concrete: !template.includes('{'),
  }));
  // OpenAPI 3.1 "Paths": concrete paths match before templated ones.
  operations.sort((a, b) => Number(b.concrete) - Number(a.concrete));

  /** `at`: where the response's header map is in the document. */
  function checkHeaders(answer: Answer, headers: Json, at: string[], problems: string[]): void {
    for (const [name, declared] of Object.entries(headers ?? {})) {
      const { value: header, segments } = resolve(declared as Json);
      const received = answer.headers.get(name);
      if (received === null) {
        if (header.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      const validate = validator(headerValues, [...(segments ?? [...at, name]), 'schema']);
      if (!validate(received)) {
        problems.push(
          `header ${name}: ${JSON.stringify(received)} breaks its schema\n${describeErrors(validate.errors)}`,
        );
      }
    }
  }

  function checkBody(answer: Answer, content: Json | undefined, at: string[], problems: string[]): void {
    const declared = Object.keys(content ?? {});
    const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (declared.length === 0) {
      if (answer.text.length > 0) problems.push(`a body (${mediaType || 'no content type'}) where none is documented`);
      return;
    }
    if (!declared.includes(mediaType)) {
      problems.push(`content type ${JSON.stringify(mediaType)} is not documented (documented: ${declared.join(', ')})`);
      return;
    }
    if (!/^application\/([a-z.+-]+\+)?json$/.test(mediaType)) return;
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      problems.push('the body is not valid JSON');
      return;
    }
    const validate = validator(bodies, [...at, 'content', mediaType, 'schema']);
    if (!validate(body)) problems.push(`the body breaks its schema\n${describeErrors(validate.errors)}`);
  }

  return {
    check(answer) {
      const url = new URL(answer.url);
      if (OPERATIONAL_PATHS.includes(url.pathname) || url.pathname.startsWith(SHOPIFY_PATH_PREFIX)) return;
      const method = answer.method.toLowerCase();
      const where = `${answer.method} ${url.pathname}${url.search} answered ${answer.status}`;
      const problems: string[] = [];
      const relative = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : null;
      const sameTemplate = relative === null ? [] : operations.filter((o) => o.regex.test(relative));
      const operation = sameTemplate.find((o) => o.methods.has(method));

      if (operation) {
        const responses = (document.paths[operation.template][method].responses ?? {}) as Json;
        const status = String(answer.status);
        const key = [status, `${status[0]}XX`, 'default'].find((k) => k in responses);
        if (!key) {
          throw new ContractViolation(
            `${where}: status ${status} is not documented for ${method.toUpperCase()} ${operation.template} ` +
              `(documented: ${Object.keys(responses).join(', ')})\n  body: ${excerpt(answer.text)}`,
          );
        }
        const { value: response, segments } = resolve(responses[key] as Json);
        const at = segments ?? ['paths', operation.template, method, 'responses', key];
        checkHeaders(answer, response.headers, [...at, 'headers'], problems);
        checkBody(answer, response.content, at, problems);
      } else {
        // No documented operation: an unknown path answers 404, a known path with another method 405 with Allow.
        const allowed = sameTemplate.length > 0 ? OTHER_METHOD_STATUSES : UNKNOWN_PATH_STATUSES;
        if (!allowed.includes(answer.status)) {
          throw new ContractViolation(
            `${where}: a request that reaches no documented operation may answer only ${allowed.join(', ')}\n` +
              `  body: ${excerpt(answer.text)}`,
          );
        }
        checkHeaders(answer, document.components?.headers ?? {}, ['components', 'headers'], problems);
        if (answer.status === 405 && !answer.headers.get('allow')) problems.push('405 without an Allow header');
        const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim();
        if (mediaType !== 'application/json') problems.push(`content type ${JSON.stringify(mediaType)} on an error`);
        else {
          const validate = validator(bodies, ['components', 'schemas', 'Error']);
          if (!validate(JSON.parse(answer.text))) {
            problems.push(`the error body breaks the Error schema\n${describeErrors(validate.errors)}`);
          }
        }
      }
      if (problems.length > 0) {
        throw new ContractViolation(
          `${where}, which breaks the OpenAPI document:\n  - ${problems.join('\n  - ')}\n  body: ${excerpt(answer.text)}`,
        );
      }
    },
  };
}

const served = new Map<string, (answer: Answer) => Promise<void>>();

/**
 * The contract of the service at `origin`, read from its own `/v1/openapi.json` on first use (that answer is
 * checked too), once per origin.
 */
export function servedContract(origin: string): (answer: Answer) => Promise<void> {
  const known = served.get(origin);
  if (known) return known;
  let contract: Promise<Contract> | undefined;
  const load = async (): Promise<Contract> => {
    const url = `${origin}/v1/openapi.json`;
    const response = await fetch(url);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${excerpt(text)}`);
    const loaded = contractOf(JSON.parse(text) as Json, origin);
    loaded.check({ method: 'GET', url, status: response.status, headers: response.headers, text });
    return loaded;
  };
  const check = async (answer: Answer): Promise<void> => {
    contract ??= load();
    (await contract).check(answer);
  };
  served.set(origin, check);
  return check;
}

/** A fetch that puts every answer through the served contract, for clients other than `TestApp.request`. */
export function checkedFetch(origin: string): (request: Request) => Promise<Response> {
  const check = servedContract(origin);
  return async (request) => {
    const response = await fetch(request);
    const text = Buffer.from(await response.clone().arrayBuffer()).toString('utf8');
    await check({ method: request.method, url: request.url, status: response.status, headers: response.headers, text });
    return response;
  };
}
