import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NoDeprecatedCustomRule, parse, specifiedRules, validate } from 'graphql';
import { loadConfig } from '../../src/config';
import { ADMIN_SCHEMA_DIR, adminSchema, adminSchemaManifest } from '../../src/platform/shopify-fake/admin-schema';
import { ADMIN_DOCUMENTS } from '../../src/platform/shopify/queries';

// The adapter's documents against Shopify's own Admin schema (vendored from @shopify/dev-mcp, `npm run
// shopify:schema`): valid and using nothing deprecated in the pinned version and in the next one the package has.
const manifest = adminSchemaManifest();
const root = join(__dirname, '..', '..');

describe.each([manifest.pinned, manifest.next])("Shopify's Admin schema %s", (version) => {
  const { schema } = adminSchema(version);
  it.each(Object.entries(ADMIN_DOCUMENTS))('accepts %s without anything deprecated', (_name, document) => {
    const errors = validate(schema, parse(document.text), [...specifiedRules, NoDeprecatedCustomRule]);
    expect(errors.map((e) => e.message)).toEqual([]);
  });
});

describe('the vendored schema', () => {
  it('is what the pinned package holds (SHA-256 of each file in the manifest)', () => {
    for (const [name, sha256] of Object.entries(manifest.files)) {
      const bytes = readFileSync(join(ADMIN_SCHEMA_DIR, name));
      expect({ name, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual({ name, sha256 });
    }
    expect(Object.keys(manifest.files).sort()).toEqual(
      [`admin_${manifest.next}.json.gz`, `admin_${manifest.pinned}.json.gz`].sort(),
    );
  });

  it('is the version the service pins by default (SHOPIFY_API_VERSION)', () => {
    expect(loadConfig({}).shopify.apiVersion).toBe(manifest.pinned);
  });

  it("knows each type's and field's access scopes", () => {
    const { access } = adminSchema(manifest.pinned);
    expect(access.get('Order')?.scopes).toContain('read_orders');
    expect(access.get('Mutation.fulfillmentOrderHold')?.scopes).toEqual(
      expect.arrayContaining(['write_merchant_managed_fulfillment_orders']),
    );
    expect(access.get('Location')?.scopes).toContain('read_locations');
    expect(access.get('Location.id')?.text).toMatch(/`read_locations` access scope/);
  });

  it('has the generated document types in step (`npm run shopify:types`)', () => {
    const check = spawnSync(process.execPath, [join(root, 'scripts', 'shopify-types.mjs'), '--check'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
  }, 60_000);
});
