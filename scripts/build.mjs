#!/usr/bin/env node
// `npm run build`: the production build. Compiles src/, workflows/ and activities/ to dist/ with tsc, copies the
// files the service reads at run time, and writes the workflow bundle the worker loads instead of bundling at start
// (Temporal's production guidance: bundleWorkflowCode at build, workflowBundle at Worker.create).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { step } from './lib/log.mjs';
import { projectRoot } from './lib/paths.mjs';

// BUILD_OUT_DIR: another output directory inside the project (npm run cluster's tests build beside `dist/`, which the
// production-build test rebuilds at the same time).
const outDir = process.env.BUILD_OUT_DIR ? resolve(projectRoot, process.env.BUILD_OUT_DIR) : join(projectRoot, 'dist');
const started = Date.now();

rmSync(outDir, { recursive: true, force: true });
step(`compiling TypeScript to ${outDir} (tsc -p tsconfig.build.json)`);
const tsc = spawnSync(
  join(projectRoot, 'node_modules', '.bin', 'tsc'),
  ['-p', 'tsconfig.build.json', '--outDir', outDir],
  {
    cwd: projectRoot,
    stdio: 'inherit',
  },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

// Read with fs at run time, relative to the compiled files: the error reference behind /v1/docs/errors and doc_url.
mkdirSync(join(outDir, 'docs'), { recursive: true });
cpSync(join(projectRoot, 'docs', 'errors.md'), join(outDir, 'docs', 'errors.md'));
cpSync(join(projectRoot, 'src', 'sandbox', 'fixtures'), join(outDir, 'src', 'sandbox', 'fixtures'), {
  recursive: true,
});
// Shopify's Admin schema, which the fake Shopify of the sandbox executes against.
cpSync(
  join(projectRoot, 'src', 'platform', 'shopify-fake', 'admin-schema'),
  join(outDir, 'src', 'platform', 'shopify-fake', 'admin-schema'),
  { recursive: true },
);

step(`bundling workflows (bundleWorkflowCode) to ${join(outDir, 'workflow-bundle.js')}`);
const require = createRequire(join(projectRoot, 'package.json'));
const { bundleWorkflowCode } = require('@temporalio/worker');
// The same interceptor modules a worker that bundles at start is given (src/temporal/workflow-source.ts).
const requestIdLogs = join(outDir, 'workflows', 'request-id-interceptor.js');
const { code } = await bundleWorkflowCode({
  workflowsPath: join(outDir, 'workflows', 'index.js'),
  workflowInterceptorModules: [requestIdLogs],
  logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
});
writeFileSync(join(outDir, 'workflow-bundle.js'), code);
// With tracing on (OTEL_TRACES_EXPORTER=otlp) the worker loads this one: the same workflows with the tracing
// interceptor modules, which a prebuilt bundle must hold from the start (src/tracing/temporal.ts).
step(`bundling workflows with the tracing interceptors to ${join(outDir, 'workflow-bundle-traced.js')}`);
const traced = await bundleWorkflowCode({
  workflowsPath: join(outDir, 'workflows', 'index.js'),
  workflowInterceptorModules: [
    require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
    requestIdLogs,
    join(outDir, 'workflows', 'request-id-span-interceptor.js'),
  ],
  logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
});
writeFileSync(join(outDir, 'workflow-bundle-traced.js'), traced.code);
step(`built ${outDir} in ${Math.round((Date.now() - started) / 1000)}s`);
