import { join } from 'node:path';
import { z } from 'zod';
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
  // One document per process, never one per Host header: the route is public and cacheable, so nothing a client
  // sends may shape it. Without PUBLIC_BASE_URL the server URL is relative (`/v1`), which OpenAPI resolves against
  // wherever the document was fetched from.
  let document: unknown;
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
        document ??= buildOpenApiDocument(options.routes(), `${options.publicBaseUrl ?? ''}/v1`);
        ctx.body = document;
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
