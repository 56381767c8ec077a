#!/usr/bin/env node
// `npm run shopify:schema [-- <package version> <integrity> <pinned API version> <next API version>]`: vendors
// Shopify's own Admin GraphQL schema (introspection, with each type's and field's required access scopes) from the npm
// package @shopify/dev-mcp, checked against the pinned integrity, into src/platform/shopify-fake/admin-schema/ with a
// manifest of what it took, then regenerates the adapter's document types (npm run shopify:types). Without arguments it
// takes the manifest's package and versions again (a check that the files are what the package holds).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { step } from './lib/log.mjs';
import { projectRoot } from './lib/paths.mjs';

const dir = join(projectRoot, 'src', 'platform', 'shopify-fake', 'admin-schema');
const manifestPath = join(dir, 'manifest.json');
const current = JSON.parse(readFileSync(manifestPath, 'utf8'));
const [version = current.version, integrity = current.integrity, pinned = current.pinned, next = current.next] =
  process.argv.slice(2);
const pkg = current.package;

const work = mkdtempSync(join(tmpdir(), 'shopify-schema-'));
try {
  step(`fetching ${pkg}@${version} from the npm registry`);
  const pack = spawnSync('npm', ['pack', `${pkg}@${version}`, '--json', '--pack-destination', work], {
    encoding: 'utf8',
  });
  if (pack.status !== 0) throw new Error(`npm pack ${pkg}@${version} failed: ${pack.stderr}`);
  const [{ filename, integrity: got }] = JSON.parse(pack.stdout);
  if (got !== integrity) throw new Error(`${filename}: integrity ${got} is not the pinned ${integrity}`);
  const untar = spawnSync('tar', ['xzf', join(work, filename), '-C', work, 'package/dist/data'], { encoding: 'utf8' });
  if (untar.status !== 0) throw new Error(`unpacking ${filename} failed: ${untar.stderr}`);
  const files = {};
  for (const apiVersion of [pinned, next]) {
    const name = `admin_${apiVersion}.json.gz`;
    copyFileSync(join(work, 'package', 'dist', 'data', name), join(dir, name));
    files[name] = createHash('sha256')
      .update(readFileSync(join(dir, name)))
      .digest('hex');
  }
  const manifest = { package: pkg, version, integrity, pinned, next, files };
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  for (const name of Object.keys(current.files)) if (!(name in files)) rmSync(join(dir, name), { force: true });
  step(`vendored Admin API ${pinned} (pinned) and ${next} (next) from ${pkg}@${version}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
const types = spawnSync(process.execPath, [join(projectRoot, 'scripts', 'shopify-types.mjs')], { stdio: 'inherit' });
process.exit(types.status ?? 1);
