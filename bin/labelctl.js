#!/usr/bin/env node
// Operator CLI entry. In a checkout (tsx installed) it runs the TypeScript source, so no build step is needed; in the
// production image (dependencies only, no tsx) it runs the compiled output of `npm run build`.
const { join } = require('node:path');

let tsx = null;
try {
  tsx = require('tsx/cjs/api');
} catch {
  tsx = null;
}
if (tsx) {
  tsx.register();
  require('../src/cli/labelctl.ts');
} else {
  require(join(__dirname, '..', 'dist', 'src', 'cli', 'labelctl.js'));
}
