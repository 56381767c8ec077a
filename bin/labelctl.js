#!/usr/bin/env node
// Operator CLI entry. In a checkout it runs the TypeScript source compiled into one file of a compile cache
// (node_modules/.cache/labelctl/, with esbuild, a dev dependency), compiled again only when a source file it holds
// changed; in the production image (dependencies only, no esbuild) it runs the compiled output of `npm run build`.
// Either way V8's code cache (Node 22.1+) keeps the modules' compiled code between runs (docs/decisions/0806).
const { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { enableCompileCache } = require('node:module');
const { join } = require('node:path');

const root = join(__dirname, '..');
const source = join(root, 'src', 'cli', 'labelctl.ts');
const cacheDir = join(root, 'node_modules', '.cache', 'labelctl');

/** The bundle of the source, compiled again when a file it was built from changed (or esbuild did). */
function compiledSource(esbuild) {
  const bundle = join(cacheDir, 'labelctl.js');
  // The syntax of the Node that runs it: npx on a machine's Node 20 and the scripts' Node 24 share the cache.
  const target = `node${process.versions.node.split('.')[0]}`;
  const manifestFile = join(cacheDir, 'manifest.json');
  const fingerprint = (file) => {
    try {
      const stat = statSync(join(root, file));
      return `${stat.mtimeMs}:${stat.size}`;
    } catch {
      return 'missing';
    }
  };
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    const current =
      manifest.esbuild === esbuild.version &&
      manifest.target === target &&
      existsSync(bundle) &&
      Object.entries(manifest.inputs).every(([file, print]) => fingerprint(file) === print);
    if (current) return bundle;
  } catch {
    // No manifest yet, or an unreadable one: compile.
  }
  mkdirSync(cacheDir, { recursive: true });
  const temporary = join(cacheDir, `labelctl.${process.pid}.js`);
  const result = esbuild.buildSync({
    absWorkingDir: root,
    entryPoints: [source],
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target,
    // Packages stay `require`d from node_modules; class names stay as written (MikroORM reads entities' names).
    packages: 'external',
    keepNames: true,
    metafile: true,
    logLevel: 'error',
  });
  const inputs = Object.fromEntries(Object.keys(result.metafile.inputs).map((file) => [file, fingerprint(file)]));
  // Renamed into place, so a labelctl started meanwhile reads a whole file.
  renameSync(temporary, bundle);
  writeFileSync(manifestFile, JSON.stringify({ esbuild: esbuild.version, target, inputs }));
  return bundle;
}

let esbuild = null;
if (existsSync(source)) {
  try {
    esbuild = require('esbuild');
  } catch {
    esbuild = null;
  }
}
enableCompileCache?.(esbuild ? join(cacheDir, 'v8') : undefined);
require(esbuild ? compiledSource(esbuild) : join(root, 'dist', 'src', 'cli', 'labelctl.js'));
