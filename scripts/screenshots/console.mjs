#!/usr/bin/env node
// Renders a terminal session recorded with `script` (ANSI colours and all) to a PNG, for docs/manual-checks.md.
// Its tools are not the project's dependencies: install them apart and name the directory, e.g.
//   npm install --prefix .data/screenshot-tools playwright-core ansi-to-html && apt-get install chromium
//   SCREENSHOT_TOOLS=.data/screenshot-tools node scripts/screenshots/console.mjs session.log docs/screenshots/dev-console.png
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchChromium } from './chromium.mjs';

const [logFile, pngFile] = process.argv.slice(2);
const tools = createRequire(resolve(process.env.SCREENSHOT_TOOLS ?? '.', 'package.json'));
const Convert = tools('ansi-to-html');
const { chromium } = tools('playwright-core');

const raw = readFileSync(logFile, 'utf8').replace(/\r/g, '');
// From npm's first line on: `script`'s own header left out.
const text = raw.slice(Math.max(0, raw.indexOf('> shipping-label-api@')));
const convert = new Convert({ fg: '#d0d0d0', bg: '#1e1e1e', escapeXML: true });
const page = join(tmpdir(), 'console-screenshot.html');
writeFileSync(
  page,
  `<!doctype html><html><body style="margin:0;background:#1e1e1e"><pre style="font:13px/1.35 'DejaVu Sans Mono',monospace;color:#d0d0d0;padding:12px;margin:0;white-space:pre">${convert.toHtml(text)}</pre></body></html>`,
);
const browser = await launchChromium(chromium);
const tab = await browser.newPage({ viewport: { width: 1180, height: 800 } });
await tab.goto(`file://${page}`);
await tab.screenshot({ path: pngFile, fullPage: true });
await browser.close();
