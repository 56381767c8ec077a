import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where `npm run build` writes the workflow bundle: beside the compiled code (dist/workflow-bundle.js). */
export const PREBUILT_BUNDLE_PATH = join(__dirname, '..', '..', 'workflow-bundle.js');
/** The same workflows with the tracing interceptor modules (src/tracing/temporal.ts) bundled in. */
export const PREBUILT_TRACED_BUNDLE_PATH = join(__dirname, '..', '..', 'workflow-bundle-traced.js');

export function prebuiltBundlePath(traced: boolean): string {
  return traced ? PREBUILT_TRACED_BUNDLE_PATH : PREBUILT_BUNDLE_PATH;
}

/**
 * The workflow interceptor modules a worker's bundle holds (scripts/build.mjs bundles the same lists): the request ID
 * on the workflows' log lines in every bundle; with tracing, Temporal's OpenTelemetry module and then ours that names
 * the request on its spans. Interceptors add no commands: a worker with or without them replays the same histories.
 */
export function workflowInterceptorModules(traced: boolean): string[] {
  const logs = require.resolve('../../workflows/request-id-interceptor');
  if (!traced) return [logs];
  return [
    require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
    logs,
    require.resolve('../../workflows/request-id-span-interceptor'),
  ];
}

export type WorkflowSource = { workflowBundle: { codePath: string } } | { workflowsPath: string };

/**
 * The workflow code the worker runs: the prebuilt bundle when there is one (Temporal's production guidance; the
 * worker starts without webpack), else the source bundled at start, which only development and tests may do.
 */
export function workflowSource(options: {
  env: 'development' | 'test' | 'production';
  workflowsPath: string;
  bundlePath?: string;
  /** Tracing on: the bundle with the tracing interceptors (off, the workflows run without any). */
  traced?: boolean;
}): WorkflowSource {
  const bundlePath = options.bundlePath ?? prebuiltBundlePath(options.traced ?? false);
  if (existsSync(bundlePath)) return { workflowBundle: { codePath: bundlePath } };
  if (options.env === 'production') {
    throw new Error(
      `no prebuilt workflow bundle at ${bundlePath}: run \`npm run build\` (production never bundles at start)`,
    );
  }
  return { workflowsPath: options.workflowsPath };
}
