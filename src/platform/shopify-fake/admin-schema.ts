import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';

/**
 * Shopify's own Admin GraphQL schema, vendored from the npm package @shopify/dev-mcp (`npm run shopify:schema`,
 * manifest.json beside the files): the introspection of each version with, per type and field, the access scopes it
 * needs. The fake executes the adapter's documents against it, the tests validate them against it, and the adapter's
 * document types are generated from it.
 */
export interface AdminSchemaManifest {
  package: string;
  version: string;
  integrity: string;
  /** The API version the service pins (SHOPIFY_API_VERSION's default) and the next one the package has. */
  pinned: string;
  next: string;
  /** File name to SHA-256. */
  files: Record<string, string>;
}

/** What a type or field needs: any one of `scopes`, and Shopify's words for it (`requiredAccess`). */
export interface AccessRule {
  scopes: readonly string[];
  text: string;
}

/** Rules by `Type` or `Type.field`; none: no scope needed. */
export type AccessRules = ReadonlyMap<string, AccessRule>;

export interface AdminSchema {
  version: string;
  schema: GraphQLSchema;
  access: AccessRules;
  /** Protected customer data (`Type.field` -> `name`, `address`, `phone` or `email`): level 2 of Shopify's approval. */
  protectedFields: ReadonlyMap<string, string>;
}

interface VendoredFile {
  data: IntrospectionQuery & {
    __schema: {
      types: Array<{
        name: string;
        fields?: Array<{ name: string; isProtected?: boolean; protectedContent?: string }> | null;
      }>;
    };
  };
  offline_scopes: {
    items: Array<{
      type: 'type' | 'field';
      typeName: string;
      fieldName?: string;
      offlineScopes: string[];
      requiredAccess: string;
    }>;
  };
}

/** The folder of the vendored files (a build copies it beside its output: scripts/build.mjs). */
export const ADMIN_SCHEMA_DIR = join(__dirname, 'admin-schema');

export function adminSchemaManifest(): AdminSchemaManifest {
  return JSON.parse(readFileSync(join(ADMIN_SCHEMA_DIR, 'manifest.json'), 'utf8')) as AdminSchemaManifest;
}

const loaded = new Map<string, AdminSchema>();

/** The schema of one vendored API version (parsed once per process: about a second). */
export function adminSchema(version: string): AdminSchema {
  let schema = loaded.get(version);
  if (!schema) {
    const file = JSON.parse(
      gunzipSync(readFileSync(join(ADMIN_SCHEMA_DIR, `admin_${version}.json.gz`))).toString('utf8'),
    ) as VendoredFile;
    const access = new Map<string, AccessRule>();
    for (const item of file.offline_scopes.items) {
      if (item.offlineScopes.length === 0) continue;
      access.set(item.type === 'type' ? item.typeName : `${item.typeName}.${item.fieldName}`, {
        scopes: item.offlineScopes,
        text: item.requiredAccess,
      });
    }
    const protectedFields = new Map<string, string>();
    for (const type of file.data.__schema.types)
      for (const field of type.fields ?? [])
        if (field.isProtected) protectedFields.set(`${type.name}.${field.name}`, field.protectedContent ?? 'customer');
    schema = { version, schema: buildClientSchema(file.data), access, protectedFields };
    loaded.set(version, schema);
  }
  return schema;
}
