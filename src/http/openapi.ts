import { z } from 'zod';
import { documentRateLimits, rateLimitErrorCodes } from './limits-openapi';
import { ERROR_CATALOG, type ErrorCode } from '../domain/error-catalog';
import { ApiError } from './api-error';
import { BODY_LIMIT_EXAMPLES, ERROR_EXAMPLES, KEY_IN_QUERY_EXAMPLE, type ErrorExample } from './error-examples';
import { queryParamWireTypes } from './query-params';
import type { ResponseHeaderSpec, RouteDefinition } from './route';
import { CURRENT_VERSION, SUPPORTED_VERSIONS } from '../domain/versions';

export const errorBodySchema = z
  .object({
    error: z
      .object({
        code: z.enum(Object.keys(ERROR_CATALOG) as [ErrorCode, ...ErrorCode[]]),
        message: z.string(),
        details: z
          .record(z.string(), z.unknown())
          .optional()
          .describe(
            'The fields the code names (see its example). Money amounts in them are decimal strings with two ' +
              'decimals, like every amount on the wire: `max`, `min` and `received` of an amount field, ' +
              '`requested` and `existing` of a `differences` entry.',
          ),
        request_id: z.string().regex(/^req_/),
        doc_url: z.string().url(),
      })
      .strict(),
  })
  .strict();

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    // A query parameter parsed from text is documented as the type the spec gives it (query-params.ts).
    override: ({ zodSchema, jsonSchema: derived }) => {
      const wire = queryParamWireTypes.get(zodSchema);
      if (!wire) return;
      for (const key of Object.keys(derived)) delete (derived as JsonSchema)[key];
      Object.assign(derived, wire);
    },
  }) as JsonSchema;
  delete out.$schema;
  return out;
}

function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  if (!schema) return {};
  const def = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape;
  return def ?? {};
}

function parameters(route: RouteDefinition): unknown[] {
  const params: unknown[] = [];
  const pathNames = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
  const pathShape = objectShape(route.params);
  for (const name of pathNames) {
    const schema = pathShape[name];
    params.push({
      name,
      in: 'path',
      required: true,
      schema: schema ? jsonSchema(schema, 'input') : { type: 'string' },
    });
  }
  for (const [name, schema] of Object.entries(objectShape(route.query))) {
    const s = jsonSchema(schema, 'input');
    params.push({
      name,
      in: 'query',
      required: !schema.safeParse(undefined).success,
      ...(s.description ? { description: s.description } : {}),
      schema: s,
    });
  }
  for (const header of route.headers ?? []) {
    params.push({
      name: header.name,
      in: 'header',
      required: header.required ?? false,
      description: header.description,
      schema: header.schema ? jsonSchema(header.schema, 'input') : { type: 'string' },
    });
  }
  params.push({ $ref: '#/components/parameters/ServiceVersion' });
  return params;
}

function errorCodesOf(route: RouteDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>([
    'validation_error',
    'unsupported_version',
    'not_found',
    'method_not_allowed',
    'internal_error',
  ]);
  if (route.access.kind === 'key') {
    for (const c of [
      'unauthorized',
      'invalid_token',
      'access_required',
      'api_paused',
      'plan_required',
      'insufficient_scope',
    ] as const)
      codes.add(c);
    if (route.access.write) codes.add('write_access_required');
  }
  for (const c of [...rateLimitErrorCodes(route), ...(route.errors ?? [])]) codes.add(c);
  return [...codes];
}

const EXAMPLE_REQUEST_ID = 'req_4f8Hk2Lm9Qz3Xc7Vb1Nd5Tw0';

/** The server URL the document's examples name when no absolute public base URL is configured. */
export const EXAMPLE_BASE_URL = 'https://api.example.com/v1';

export interface SuccessExample {
  summary: string;
  value: unknown;
}

/**
 * Answers of the API recorded from the sandbox (src/api/success-examples.json), by operation ID, status and a name of
 * each: the examples of the document's success answers. Their URLs start with EXAMPLE_BASE_URL, which the document
 * replaces with its server URL.
 */
export type SuccessExamples = Record<string, Record<string, Record<string, SuccessExample>>>;

function withServerUrl(value: unknown, docBase: string): unknown {
  return JSON.parse(JSON.stringify(value).split(EXAMPLE_BASE_URL).join(docBase));
}

function headerObject(spec: string | ResponseHeaderSpec): JsonSchema {
  const header = typeof spec === 'string' ? { description: spec } : spec;
  return {
    description: header.description,
    ...(header.required ? { required: true } : {}),
    schema: header.schema ? jsonSchema(header.schema, 'output') : { type: 'string' },
  };
}

/** Headers on every answer, errors included (requestContext). */
const COMMON_HEADERS = {
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
  'Service-Version': { $ref: '#/components/headers/Service-Version' },
};

function errorExample(code: ErrorCode, example: ErrorExample, status: number, docBase: string): JsonSchema {
  const error = new ApiError(code, { status, ...(example.details ? { details: example.details } : {}) });
  const hasDetails = Object.keys(error.details).length > 0;
  return {
    summary: example.summary,
    value: {
      error: {
        code,
        message: error.message,
        ...(hasDetails ? { details: error.details } : {}),
        request_id: EXAMPLE_REQUEST_ID,
        doc_url: `${docBase}/docs/errors#${code}`,
      },
    },
  };
}

/**
 * One response per error status: the codes it stands for, an example of each (keyed by the code, or by a name of its
 * own for a code's further examples), and the headers they carry.
 */
function errorResponse(
  status: number,
  examples: Array<[ErrorCode, ErrorExample, string?]>,
  docBase: string,
  extraDescription = '',
  /** Headers a route sends on this status besides the common ones (`RouteDefinition.errorHeaders`). */
  extraHeaders: Record<string, string> = {},
): JsonSchema {
  const headers: Record<string, unknown> = { ...COMMON_HEADERS };
  for (const [name, description] of Object.entries(extraHeaders))
    headers[name] = { description, schema: { type: 'string' } };
  if (examples.some(([, e]) => e.retryAfter) || extraHeaders['Retry-After'])
    headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
  if (status === 405)
    headers.Allow = { description: 'Methods the path accepts', required: true, schema: { type: 'string' } };
  return {
    description: `Error: ${[...new Set(examples.map(([c]) => `\`${c}\``))].join(', ')}${extraDescription}`,
    headers,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: Object.fromEntries(
          examples.map(([code, e, key]) => [key ?? code, errorExample(code, e, status, docBase)]),
        ),
      },
    },
  };
}

/** Bodies without a schema: a string of each media type. */
const textContent = (types: readonly string[]) =>
  Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]));

function operation(route: RouteDefinition, docBase: string, successExamples: SuccessExamples): JsonSchema {
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const recorded = successExamples[route.operationId]?.[status];
    const examples = recorded
      ? {
          examples: Object.fromEntries(
            Object.entries(recorded).map(([name, e]) => [
              name,
              { summary: e.summary, value: withServerUrl(e.value, docBase) },
            ]),
          ),
        }
      : {};
    const headers = {
      ...COMMON_HEADERS,
      ...Object.fromEntries(Object.entries(spec.headers ?? {}).map(([name, h]) => [name, headerObject(h)])),
    };
    responses[status] = {
      description: spec.description,
      headers,
      ...(spec.schema
        ? {
            content: {
              [spec.contentType ?? 'application/json']: { schema: jsonSchema(spec.schema, 'output'), ...examples },
            },
          }
        : spec.contentType || spec.contentTypes
          ? { content: textContent([...(spec.contentType ? [spec.contentType] : []), ...(spec.contentTypes ?? [])]) }
          : {}),
    };
  }
  // Spec "Authentication" 2: a key in the query string is refused with 400 on every path.
  responses['400'] = errorResponse(
    400,
    [['validation_error', KEY_IN_QUERY_EXAMPLE]],
    docBase,
    ' (API key in the query string)',
  );
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const examples: Array<[ErrorCode, ErrorExample, string?]> = codes.map((c) => [
      c,
      route.errorExamples?.[c] ?? ERROR_EXAMPLES[c],
    ]);
    // A declared length over the limit is refused on every path; only a route that reads a body parses it.
    if (status === 422) {
      for (const [key, example] of Object.entries(BODY_LIMIT_EXAMPLES)) {
        if (route.body || key === 'validation_error.max_bytes') examples.push(['validation_error', example, key]);
      }
    }
    responses[String(status)] = errorResponse(status, examples, docBase, '', route.errorHeaders?.[status]);
  }
  const requestBody = route.body
    ? {
        required: true,
        content: {
          'application/json': {
            schema: jsonSchema(route.body, 'input'),
            ...(route.requestExample !== undefined ? { example: route.requestExample } : {}),
          },
        },
      }
    : undefined;
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    parameters: parameters(route),
    ...(requestBody ? { requestBody } : {}),
    responses,
    security: route.access.kind === 'key' ? [{ bearerAuth: [route.access.scope] }] : [],
    ...(route.access.kind === 'key' ? { 'x-required-scope': route.access.scope } : {}),
  };
}

/** Where a key comes from, at the top of the reference page (Swagger UI renders the description as markdown). */
export const DEVELOPMENT_KEY_HELP =
  '**Getting a key.** Every call but this description needs `Authorization: Bearer <API key>`, and a key belongs to ' +
  'one store. For development, run the service from its repository with `npm run dev`: it prints a key of the demo ' +
  'store (`demo-store.myshopify.com`, on the sandbox carriers and store platform: nothing is shipped), which ' +
  '**Authorize** on this page takes. More keys, with the scopes you choose: `node bin/labelctl.js key create ' +
  'demo-store.myshopify.com --name my-key --scope labels:print labels:write`; fresh orders to create labels for: ' +
  "`node bin/labelctl.js demo orders add`. On a production service, the operators create a store's keys (`labelctl key " +
  "create`); a key's secret is shown once.";

/** The OpenAPI 3.1 document, generated from the route table and its zod schemas. */
/** `serverUrl` includes the `/v1` prefix; relative (`/v1`) when no public base URL is configured. */
export function buildOpenApiDocument(
  routes: readonly RouteDefinition[],
  serverUrl: string,
  successExamples: SuccessExamples = {},
): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  // Examples need an absolute doc_url: the server URL when absolute (it ends in /v1), else a placeholder host.
  const docBase = /^https?:\/\//.test(serverUrl) ? serverUrl : EXAMPLE_BASE_URL;
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = documentRateLimits(
      route,
      operation(route, docBase, successExamples),
    );
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Shipping Label API',
      version: CURRENT_VERSION,
      description:
        'Read shipping labels and label PDFs of one store, create labels at parcel carriers and resolve unclear creations. ' +
        'Errors use one body; branch on `error.code`. Error reference: /v1/docs/errors.\n\n' +
        DEVELOPMENT_KEY_HELP,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <API_KEY>; scopes are exact matches.',
        },
      },
      parameters: {
        ServiceVersion: {
          name: 'Service-Version',
          in: 'header',
          required: false,
          description:
            'API version; defaults to the version pinned on the key. Unknown versions answer 422 `unsupported_version`.',
          schema: { type: 'string', enum: [...SUPPORTED_VERSIONS] },
        },
      },
      headers: {
        'X-Request-Id': {
          description: 'Request ID, `req_...`; equals `error.request_id` on errors',
          required: true,
          schema: { type: 'string', pattern: '^req_[A-Za-z0-9]+$' },
        },
        'Service-Version': {
          description: 'The API version the answer is rendered in',
          required: true,
          schema: { type: 'string', enum: [...SUPPORTED_VERSIONS] },
        },
        'Retry-After': {
          description: 'Seconds to wait before trying again',
          required: false,
          schema: { type: 'integer', minimum: 0 },
        },
      },
      schemas: { Error: jsonSchema(errorBodySchema, 'output') },
    },
  };
}
