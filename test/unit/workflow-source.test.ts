import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PREBUILT_BUNDLE_PATH,
  PREBUILT_TRACED_BUNDLE_PATH,
  prebuiltBundlePath,
  workflowSource,
} from '../../src/temporal/workflow-source';

const dir = mkdtempSync(join(tmpdir(), 'workflow-source-'));
const bundle = join(dir, 'workflow-bundle.js');
writeFileSync(bundle, '// bundle');
const missing = join(dir, 'missing.js');

describe('workflowSource', () => {
  it.each(['production', 'development', 'test'] as const)('loads the prebuilt bundle when there is one (%s)', (env) => {
    expect(workflowSource({ env, workflowsPath: '/src/workflows', bundlePath: bundle })).toEqual({
      workflowBundle: { codePath: bundle },
    });
  });

  it.each(['development', 'test'] as const)('bundles the source at start without one (%s)', (env) => {
    expect(workflowSource({ env, workflowsPath: '/src/workflows', bundlePath: missing })).toEqual({
      workflowsPath: '/src/workflows',
    });
  });

  it('picks the bundle with the tracing interceptors when tracing is on', () => {
    expect(prebuiltBundlePath(true)).toBe(PREBUILT_TRACED_BUNDLE_PATH);
    expect(prebuiltBundlePath(false)).toBe(PREBUILT_BUNDLE_PATH);
    expect(PREBUILT_TRACED_BUNDLE_PATH).not.toBe(PREBUILT_BUNDLE_PATH);
  });

  it('refuses to bundle at start in production', () => {
    expect(() => workflowSource({ env: 'production', workflowsPath: '/src/workflows', bundlePath: missing })).toThrow(
      /no prebuilt workflow bundle .* run `npm run build`/,
    );
  });
});
