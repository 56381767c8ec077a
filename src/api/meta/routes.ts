import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { z } from 'zod';
import { buildOpenApiDocument } from '../../http/openapi';
import successExamples from '../success-examples.json';
import { defineRoute, type RouteDefinition } from '../../http/route';
import { ApiError } from '../../http/api-error';
import {
  ASSET_MEDIA_TYPES,
  ASSET_NAMES,
  loadReferenceAssets,
  renderReferencePage,
  type ReferenceAsset,
} from './api-reference';
import { loadErrorReference } from './error-reference';

const projectRoot = join(__dirname, '..', '..', '..');

/**
 * The machine-readable description, the API reference page rendering it, and the error reference: public, no key (spec
 * "Endpoints" intro).
 */
export function createMetaRoutes(options: {
  publicBaseUrl: string | undefined;
  routes: () => readonly RouteDefinition[];
}) {
  // One document per process, never one per Host header: the route is public and cacheable, so nothing a client
  // sends may shape it. Without PUBLIC_BASE_URL the server URL is relative (`/v1`), which OpenAPI resolves against
  // wherever the document was fetched from.
  let document: unknown;
  // Links between the pages name PUBLIC_BASE_URL when configured, else the path alone (as the document's server URL).
  const prefix = `${options.publicBaseUrl ?? ''}/v1`;
  const reference = loadErrorReference(projectRoot, { apiReferenceUrl: `${prefix}/docs` });
  const page = renderReferencePage({
    documentUrl: `${prefix}/openapi.json`,
    assetBase: `${prefix}/docs/assets`,
    errorsUrl: `${prefix}/docs/errors`,
  });
  let assets: ReadonlyMap<string, ReferenceAsset & { gzipped: Buffer }> | undefined;
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
        document ??= buildOpenApiDocument(options.routes(), `${options.publicBaseUrl ?? ''}/v1`, successExamples);
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
    defineRoute({
      method: 'GET',
      path: '/docs',
      operationId: 'getApiReference',
      summary: 'API reference: this document rendered for people (Swagger UI, served by the API itself)',
      tag: 'Meta',
      access: { kind: 'public' },
      responses: { 200: { description: 'HTML page rendering `/v1/openapi.json`', contentType: 'text/html' } },
      cacheControl: 'public, max-age=300',
      handler: async (ctx) => {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = page;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/assets/{asset}',
      operationId: 'getApiReferenceAsset',
      summary: "A script, style sheet or icon of the API reference page (the renderer's files)",
      tag: 'Meta',
      access: { kind: 'public' },
      params: z.object({ asset: z.enum(ASSET_NAMES).describe('File name, as the page names it') }),
      responses: { 200: { description: 'The file', contentTypes: ASSET_MEDIA_TYPES } },
      cacheControl: 'public, max-age=3600',
      handler: async (ctx, { params }) => {
        assets ??= withGzip(loadReferenceAssets());
        const asset = assets.get(params.asset);
        if (!asset) throw new ApiError('not_found', { message: 'The API reference page has no such file.' });
        ctx.vary('Accept-Encoding');
        ctx.type = asset.contentType;
        if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
          ctx.set('Content-Encoding', 'gzip');
          ctx.body = asset.gzipped;
        } else ctx.body = asset.body;
      },
    }),
  ];
}

/** The renderer's bundle is 1.7 MB, about a quarter of it gzipped: compressed once, sent to every client that takes it. */
function withGzip(assets: ReadonlyMap<string, ReferenceAsset>) {
  return new Map([...assets].map(([name, asset]) => [name, { ...asset, gzipped: gzipSync(asset.body) }]));
}
