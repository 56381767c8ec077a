#!/usr/bin/env node
// Operator CLI entry: runs the TypeScript source through tsx, so no build step is needed.
require('tsx/cjs/api').register();
require('../src/cli/labelctl.ts');
