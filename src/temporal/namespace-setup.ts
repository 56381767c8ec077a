import { isGrpcServiceError, type ConnectionLike } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import { msToTs, tsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import * as workflowKeys from '../../workflows/search-attributes';
import registry from './search-attributes.json';

/** gRPC status codes the setup tells apart (the SDK's errors carry the number). */
const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;

/** The type names of `search-attributes.json` (the dev server's `--search-attribute` spelling). */
const TYPES: Record<string, SearchAttributeType> = {
  Keyword: 'KEYWORD',
  Text: 'TEXT',
  Int: 'INT',
  Double: 'DOUBLE',
  Bool: 'BOOL',
  Datetime: 'DATETIME',
  KeywordList: 'KEYWORD_LIST',
};

/** The wire numbers of `temporal.api.enums.v1.IndexedValueType` (protobuf enum values never change). */
const WIRE: Record<SearchAttributeType, number> = {
  TEXT: 1,
  KEYWORD: 2,
  INT: 3,
  DOUBLE: 4,
  BOOL: 5,
  DATETIME: 6,
  KEYWORD_LIST: 7,
};
const typeOfWire = (wire: number): SearchAttributeType | undefined =>
  (Object.keys(WIRE) as SearchAttributeType[]).find((type) => WIRE[type] === Number(wire));

/** Search attributes by name with their types: what the project declares, or what a namespace has. */
export type SearchAttributeTypes = ReadonlyMap<string, SearchAttributeType>;

/** The command an operator runs to register what is missing (named in the worker's refusal). */
export const SETUP_COMMAND = 'npm run temporal:setup (compiled: node dist/src/temporal/setup.js)';

/** The project's custom search attributes, from `search-attributes.json`, with their server types. */
export function projectSearchAttributes(declared: Record<string, string> = registry): SearchAttributeTypes {
  const attributes = new Map<string, SearchAttributeType>();
  for (const [name, typeName] of Object.entries(declared)) {
    const type = TYPES[typeName];
    if (type === undefined) throw new Error(`search attribute ${name}: unknown type ${typeName}`);
    attributes.set(name, type);
  }
  return attributes;
}

/** The search attributes the workflows set (what the worker checks at start). */
export function workflowSearchAttributes(): SearchAttributeTypes {
  return new Map(Object.values(workflowKeys).map((key) => [key.name, key.type]));
}

export interface NamespaceSetup {
  namespace: string;
  /** How long Temporal keeps a closed workflow's history (applied when the namespace is created). */
  retentionMs: number;
}

export interface SetupReport {
  namespace: 'created' | 'existed';
  /** The retention the existing namespace has, when it differs from the configured one (left as it is). */
  retentionDiffersMs?: number;
  added: string[];
  present: string[];
}

const isCode = (error: unknown, code: number) => isGrpcServiceError(error) && Number(error.code) === code;

async function retentionOf(connection: ConnectionLike, namespace: string): Promise<number | null> {
  try {
    const described = await connection.workflowService.describeNamespace({ namespace });
    const retention = described.config?.workflowExecutionRetentionTtl;
    return retention ? tsToMs(retention) : 0;
  } catch (error) {
    if (isCode(error, NOT_FOUND)) return null;
    throw error;
  }
}

/**
 * Creates the namespace when it is missing. An existing one is left as it is, retention included: on Temporal Cloud
 * and on shared clusters namespaces are managed elsewhere, and a deploy must not change them behind an operator's back.
 */
export async function ensureNamespace(
  connection: ConnectionLike,
  { namespace, retentionMs }: NamespaceSetup,
): Promise<Pick<SetupReport, 'namespace' | 'retentionDiffersMs'>> {
  const existing = await retentionOf(connection, namespace);
  if (existing !== null)
    return existing === retentionMs ? { namespace: 'existed' } : { namespace: 'existed', retentionDiffersMs: existing };
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(retentionMs),
    });
    return { namespace: 'created' };
  } catch (error) {
    // Another deploy's setup created it between our look and our call.
    if (isCode(error, ALREADY_EXISTS)) return { namespace: 'existed' };
    throw error;
  }
}

/**
 * The custom search attributes the namespace has, by name. A namespace created a moment ago may be unknown to the
 * frontend until its namespace cache refreshes, so NOT_FOUND is retried for a while.
 */
async function registeredAttributes(
  connection: ConnectionLike,
  namespace: string,
  waitMs: number,
): Promise<Map<string, SearchAttributeType | undefined>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const listed = await connection.operatorService.listSearchAttributes({ namespace });
      return new Map(Object.entries(listed.customAttributes ?? {}).map(([name, wire]) => [name, typeOfWire(wire)]));
    } catch (error) {
      if (!isCode(error, NOT_FOUND) || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Names of `wanted` the namespace does not have with the same type (a wrong type counts as missing). */
export async function missingSearchAttributes(
  connection: ConnectionLike,
  namespace: string,
  wanted: SearchAttributeTypes = projectSearchAttributes(),
  waitMs = 0,
): Promise<string[]> {
  const registered = await registeredAttributes(connection, namespace, waitMs);
  return [...wanted].filter(([name, type]) => registered.get(name) !== type).map(([name]) => name);
}

/** Registers every attribute of `wanted` the namespace lacks; an attribute of the same name and another type is an error. */
export async function ensureSearchAttributes(
  connection: ConnectionLike,
  namespace: string,
  wanted: SearchAttributeTypes = projectSearchAttributes(),
): Promise<Pick<SetupReport, 'added' | 'present'>> {
  const registered = await registeredAttributes(connection, namespace, 30_000);
  const clashing = [...wanted].filter(([name, type]) => registered.has(name) && registered.get(name) !== type);
  if (clashing.length)
    throw new Error(
      `namespace ${namespace}: search attributes registered with another type: ${clashing
        .map(([name, type]) => `${name} (wanted ${type}, is ${registered.get(name) ?? 'another'})`)
        .join(', ')}`,
    );
  const missing = [...wanted].filter(([name]) => !registered.has(name));
  const present = [...wanted].filter(([name]) => registered.has(name)).map(([name]) => name);
  if (missing.length) {
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(
          missing.map(([name, type]) => [name, WIRE[type] as temporal.api.enums.v1.IndexedValueType]),
        ),
      });
    } catch (error) {
      // A concurrent setup registered them first; the look below says whether everything is there now.
      if (!isCode(error, ALREADY_EXISTS)) throw error;
    }
    const stillMissing = await missingSearchAttributes(connection, namespace, wanted, 30_000);
    if (stillMissing.length)
      throw new Error(
        `namespace ${namespace}: search attributes still missing after adding: ${stillMissing.join(', ')}`,
      );
  }
  return { added: missing.map(([name]) => name), present };
}

/** The whole setup step: namespace, then search attributes. Idempotent; run at every deploy. */
export async function setupTemporal(connection: ConnectionLike, setup: NamespaceSetup): Promise<SetupReport> {
  const namespace = await ensureNamespace(connection, setup);
  const attributes = await ensureSearchAttributes(connection, setup.namespace);
  return { ...namespace, ...attributes };
}

/**
 * The worker's start check: a Temporal server refuses to start a workflow with an unregistered search attribute, so
 * a worker on an unprepared namespace would fail every creation. It stops instead, saying what to run.
 */
export async function assertSearchAttributesRegistered(
  connection: ConnectionLike,
  namespace: string,
  wanted: SearchAttributeTypes = workflowSearchAttributes(),
): Promise<void> {
  let missing: string[];
  try {
    missing = await missingSearchAttributes(connection, namespace, wanted);
  } catch (error) {
    if (!isCode(error, NOT_FOUND)) throw error;
    throw new Error(`Temporal namespace ${namespace} does not exist: run ${SETUP_COMMAND} with this configuration`, {
      cause: error,
    });
  }
  if (missing.length)
    throw new Error(
      `Temporal namespace ${namespace} lacks the search attributes ${missing.sort().join(', ')}: run ${SETUP_COMMAND} with ` +
        'this configuration',
    );
}
