import { z } from 'zod';
import { documentRateLimits, rateLimitErrorCodes } from '../limits/openapi';
import { ERROR_CATALOG, type ErrorCode } from './error-catalog';
import type { RouteDefinition } from './route';
import { CURRENT_VERSION, SUPPORTED_VERSIONS } from './versions';

export const errorBodySchema = z
  .object({
    error: z
      .object({
        code: z.enum(Object.keys(ERROR_CATALOG) as [ErrorCode, ...ErrorCode[]]),
        message: z.string(),
        details: z.record(z.string(), z.unknown()).optional(),
        request_id: z.string().regex(/^req_/),
        doc_url: z.string().url(),
      })
      .strict(),
  })
  .strict();

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
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

function operation(route: RouteDefinition): JsonSchema {
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const headers = Object.fromEntries(
      Object.entries({
        'X-Request-Id': 'Request ID, `req_...`',
        'Service-Version': 'Version rendered',
        ...spec.headers,
      }).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
    );
    responses[status] = {
      description: spec.description,
      headers,
      ...(spec.schema
        ? { content: { [spec.contentType ?? 'application/json']: { schema: jsonSchema(spec.schema, 'output') } } }
        : spec.contentType
          ? { content: { [spec.contentType]: { schema: { type: 'string', contentMediaType: spec.contentType } } } }
          : {}),
    };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const status = code === 'validation_error' ? 422 : ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of byStatus) {
    const extra = route.errorHeaders?.[status];
    responses[String(status)] = {
      description: `Error: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      ...(extra
        ? {
            headers: Object.fromEntries(
              Object.entries(extra).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
            ),
          }
        : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  const requestBody = route.body
    ? { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } }
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

/** The OpenAPI 3.1 document, generated from the route table and its zod schemas. */
/** `serverUrl` includes the `/v1` prefix; relative (`/v1`) when no public base URL is configured. */
export function buildOpenApiDocument(routes: readonly RouteDefinition[], serverUrl: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = documentRateLimits(route, operation(route));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Shipping Label API',
      version: CURRENT_VERSION,
      description:
        'Read shipping labels and label PDFs of one store, create labels at parcel carriers and resolve unclear creations. ' +
        'Errors use one body; branch on `error.code`. Error reference: /v1/docs/errors.',
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
      schemas: { Error: jsonSchema(errorBodySchema, 'output') },
    },
  };
}
