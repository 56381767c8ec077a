#!/usr/bin/env node
// Opens a workflow's page in the Temporal Web UI with a headless Chromium and saves a screenshot of one of its tabs
// (`User Metadata`, or the History tab when none is named), for docs/manual-checks.md. Its tools are not the project's
// dependencies: install them apart and name the directory, e.g.
//   npm install --prefix .data/screenshot-tools playwright-core && apt-get install chromium
//   SCREENSHOT_TOOLS=.data/screenshot-tools node scripts/screenshots/web-ui.mjs http://127.0.0.1:8233 'label-creation/st_.../key' \
//     docs/screenshots/web-ui-succeeded.png 'User Metadata'
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { launchChromium } from './chromium.mjs';

const [ui, workflowId, pngFile, tab] = process.argv.slice(2);
const { chromium } = createRequire(resolve(process.env.SCREENSHOT_TOOLS ?? '.', 'package.json'))('playwright-core');
const browser = await launchChromium(chromium);
const page = await browser.newPage({ viewport: { width: 1400, height: 1300 } });
// The workflow's page without a run ID opens its latest run (the link `labelctl creations` prints).
await page.goto(`${ui}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`, { waitUntil: 'load' });
await page.waitForTimeout(5000);
if (tab) {
  await page.getByText(tab, { exact: true }).first().click();
  await page.waitForTimeout(3000);
}
await page.screenshot({ path: pngFile, fullPage: true });
await browser.close();
