import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The API reference page (`GET /v1/docs`): Swagger UI (swagger-ui-dist, installed from npm) rendering the served
 * `/v1/openapi.json`. The page and every asset it loads come from this service, never from a CDN, so the reference
 * works offline and behind a firewall (docs/decisions/0800-api-reference-page.md).
 */

export interface ReferenceAsset {
  contentType: string;
  body: Buffer;
}

/** The files of swagger-ui-dist the page loads, by the name they are served under (`/v1/docs/assets/<name>`). */
const DIST_FILES: Record<string, { file: string; contentType: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', contentType: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', contentType: 'text/javascript; charset=utf-8' },
  'favicon.png': { file: 'favicon-32x32.png', contentType: 'image/png' },
};

/** The files the assets route serves, by the names the page uses. */
export const ASSET_NAMES: [string, ...string[]] = ['reference.js', ...Object.keys(DIST_FILES)];

/** The media types the assets route answers with, for the OpenAPI document. */
export const ASSET_MEDIA_TYPES = ['text/css', 'text/javascript', 'image/png'] as const;

/**
 * Starts Swagger UI on the page's root element, reading the document's URL from its `data-openapi-url`. A script file
 * of our own rather than an inline one, so the page works under a Content-Security-Policy without 'unsafe-inline'.
 * `validatorUrl: null`: Swagger UI would otherwise send the document to an online validator.
 */
const INITIALIZER = `window.addEventListener('load', function () {
  var root = document.getElementById('api-reference');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    domNode: root,
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const escapeAttribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The page. `documentUrl` is the served document (`<PUBLIC_BASE_URL>/v1/openapi.json`, or `/v1/openapi.json`);
 * `assetBase` is where the assets route answers (`/v1/docs/assets`).
 */
export function renderReferencePage(options: { documentUrl: string; assetBase: string; errorsUrl: string }): string {
  const asset = (name: string) => escapeAttribute(`${options.assetBase}/${name}`);
  const documentUrl = escapeAttribute(options.documentUrl);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Shipping Label API reference</title>',
    `<link rel="icon" type="image/png" href="${asset('favicon.png')}">`,
    `<link rel="stylesheet" href="${asset('swagger-ui.css')}">`,
    '</head>',
    '<body>',
    `<p style="font-family: sans-serif; margin: 1em 2em">The machine-readable description: <a href="${documentUrl}">${documentUrl}</a>. Error codes: <a href="${escapeAttribute(options.errorsUrl)}">the error reference</a>. A development key: <code>npm run dev</code> prints one for the demo store (more below, under “Getting a key”).</p>`,
    `<div id="api-reference" data-openapi-url="${documentUrl}"></div>`,
    `<script src="${asset('swagger-ui-bundle.js')}"></script>`,
    `<script src="${asset('reference.js')}"></script>`,
    '</body>',
    '</html>',
  ].join('\n');
}

/** Where swagger-ui-dist is installed (node_modules, in development and in the production image alike). */
function distDirectory(): string {
  return dirname(require.resolve('swagger-ui-dist/package.json'));
}

/** The assets by name, read once from swagger-ui-dist (about 1.5 MB, kept in memory for the process's life). */
export function loadReferenceAssets(): ReadonlyMap<string, ReferenceAsset> {
  const dir = distDirectory();
  const assets = new Map<string, ReferenceAsset>();
  for (const [name, { file, contentType }] of Object.entries(DIST_FILES))
    assets.set(name, { contentType, body: readFileSync(join(dir, file)) });
  assets.set('reference.js', { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(INITIALIZER) });
  return assets;
}
