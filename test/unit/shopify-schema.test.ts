import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  getNamedType,
  isObjectType,
  NoDeprecatedCustomRule,
  parse,
  specifiedRules,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type FieldNode,
} from 'graphql';
import { loadConfig } from '../../src/config';
import { ADMIN_SCHEMA_DIR, adminSchema, adminSchemaManifest } from '../../src/platform/shopify-fake/admin-schema';
import { ADMIN_DOCUMENTS } from '../../src/platform/shopify/queries';
import { CUSTOMER_PHONE_SCOPE, grants, REQUIRED_SHOPIFY_SCOPES } from '../../src/platform/shopify/scopes';

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

describe('the required access scopes (src/platform/shopify/scopes.ts)', () => {
  const { schema, access } = adminSchema(manifest.pinned);

  type Rule = { at: string; anyOf: readonly string[]; optional: boolean };
  /**
   * Every scope rule a document meets, as Shopify's schema annotates fields and their types (a connection's nodes);
   * `optional` within a field the document marks optional (its response key in `optionalFields`).
   */
  function rulesOf(text: string, optionalFields: readonly string[] = []): Rule[] {
    const rules: Rule[] = [];
    const info = new TypeInfo(schema);
    const marked = (node: FieldNode) => optionalFields.includes((node.alias ?? node.name).value);
    let depthInOptional = 0;
    visit(
      parse(text),
      visitWithTypeInfo(info, {
        Field: {
          leave(node) {
            if (marked(node)) depthInOptional -= 1;
          },
          enter(node) {
            if (marked(node)) depthInOptional += 1;
            const parent = info.getParentType();
            const field = info.getFieldDef();
            if (!parent || !field) return;
            const at = `${parent.name}.${field.name}`;
            let type = getNamedType(field.type);
            const nodes = isObjectType(type) && type.name.endsWith('Connection') ? type.getFields().nodes : undefined;
            if (nodes) type = getNamedType(nodes.type);
            for (const key of [at, type.name]) {
              const rule = access.get(key);
              if (rule) rules.push({ at, anyOf: rule.scopes, optional: depthInOptional > 0 });
            }
          },
        },
      }),
    );
    return rules;
  }

  it.each(Object.entries(ADMIN_DOCUMENTS))('suffice for every field %s reads or writes', (_name, document) => {
    const rules = rulesOf(document.text, document.optionalFields);
    const unmet = rules.filter((r) => !r.optional && !r.anyOf.some((s) => grants(REQUIRED_SHOPIFY_SCOPES, s)));
    expect(unmet).toEqual([]);
    // What a document marks optional needs no more than the optional customer scope (decision 0716).
    const withOptional = [...REQUIRED_SHOPIFY_SCOPES, CUSTOMER_PHONE_SCOPE];
    expect(rules.filter((r) => r.optional && !r.anyOf.some((s) => grants(withOptional, s)))).toEqual([]);
  });

  it('are the ones docs/shopify.md lists, in its table', () => {
    const doc = readFileSync(join(root, 'docs', 'shopify.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Access scopes'), doc.indexOf('## Connecting a store'));
    const listed = [...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual([...REQUIRED_SHOPIFY_SCOPES]);
  });
});
