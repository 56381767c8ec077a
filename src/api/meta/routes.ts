import { join } from 'node:path';
import { z } from 'zod';
import { baseUrl } from '../../http/middleware';
import { buildOpenApiDocument } from '../../http/openapi';
import { defineRoute, type RouteDefinition } from '../../http/route';
import { loadErrorReference } from './error-reference';

const projectRoot = join(__dirname, '..', '..', '..');

/** The machine-readable description and the error reference: public, no key (spec "Endpoints" intro). */
export function createMetaRoutes(options: {
  publicBaseUrl: string | undefined;
  routes: () => readonly RouteDefinition[];
}) {
  const reference = loadErrorReference(projectRoot);
  const documents = new Map<string, unknown>();
  return [
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'The OpenAPI 3.1 description of this API',
      tag: 'Meta',
      access: { kind: 'public' },
      responses: { 200: { description: 'OpenAPI 3.1 document', schema: z.record(z.string(), z.unknown()) } },
      cacheControl: 'public, max-age=300',
      handler: async (ctx) => {
        const server = baseUrl(ctx, options.publicBaseUrl);
        if (!documents.has(server)) documents.set(server, buildOpenApiDocument(options.routes(), server));
        ctx.body = documents.get(server);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/errors',
      operationId: 'getErrorReference',
      summary: 'Error reference: one section per error code (the target of `doc_url`)',
      tag: 'Meta',
      access: { kind: 'public' },
      responses: { 200: { description: 'HTML error reference', contentType: 'text/html' } },

      handler: async (ctx) => {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = reference.html;
      },
    }),
  ];
}
