import type { z } from 'zod';
import { ApiError } from './api-error';
import { isCommaSeparated } from './query-params';

export type InputLocation = 'query' | 'body' | 'header';

function describeReceived(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'string') return value.length > 100 ? `${value.slice(0, 100)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  const json = JSON.stringify(value);
  return json.length > 100 ? `${json.slice(0, 100)}…` : JSON.parse(json);
}

function parameterName(location: InputLocation, path: PropertyKey[]): string {
  const name = path.map(String).join('.');
  return location === 'body' ? name || 'body' : name;
}

/** The fields an object schema at `path` of `schema` declares; empty where the path leads to no object. */
function knownKeys(schema: z.ZodType | undefined, path: PropertyKey[]): string[] {
  let current: unknown = schema;
  for (const segment of [...path, null]) {
    // Optional, nullable and default wrappers hold the object inside; arrays their element.
    for (let i = 0; i < 5 && current && !(current as { shape?: unknown }).shape; i += 1) {
      const def = (current as { def?: { innerType?: unknown; element?: unknown } }).def;
      current = def?.innerType ?? def?.element;
    }
    const shape = (current as { shape?: Record<string, unknown> } | undefined)?.shape;
    if (!shape) return [];
    if (segment === null) return Object.keys(shape);
    current = typeof segment === 'number' ? current : shape[String(segment)];
  }
  return [];
}

/** A declared field an unknown one is likely meant as: the same letters in another case (`orderId`), or one typo. */
export function likelyMeant(unknown: string, known: readonly string[]): string | null {
  const letters = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
  const same = known.find((name) => letters(name) === letters(unknown));
  if (same) return same;
  const close = known.filter((name) => editDistanceAtMostOne(name, unknown));
  return close.length === 1 ? close[0]! : null;
}

function editDistanceAtMostOne(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i += 1;
      j += 1;
      continue;
    }
    edits += 1;
    if (edits > 1) return false;
    if (a.length > b.length) i += 1;
    else if (b.length > a.length) j += 1;
    else {
      i += 1;
      j += 1;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/**
 * Turns the first zod issue into the spec's 422 `validation_error` with `parameter`/`header`, `received`, `allowed`.
 * With the schema, an unknown field names the declared one it is likely meant as.
 */
export function validationErrorFrom(error: z.ZodError, location: InputLocation, schema?: z.ZodType): ApiError {
  const issue = error.issues[0]!;
  const details: Record<string, unknown> = {};
  let path = issue.path;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path = [...issue.path, issue.keys[0]!];
    const meant = likelyMeant(issue.keys[0]!, knownKeys(schema, issue.path));
    const what = location === 'query' ? 'query parameter' : 'field';
    message = `Unknown ${what} \`${parameterName(location, path)}\`${meant ? `; did you mean \`${meant}\`?` : '.'}`;
  }
  const name = parameterName(location, path);
  if (location === 'header') details.header = name;
  else details.parameter = name;
  details.received = issue.code === 'unrecognized_keys' ? null : describeReceived(issue.input);
  if (issue.code === 'invalid_value') details.allowed = issue.values;
  if (issue.code === 'too_big' && typeof issue.maximum !== 'bigint') details.max = issue.maximum;
  if (issue.code === 'too_small' && typeof issue.minimum !== 'bigint') details.min = issue.minimum;
  // A custom check names its own bounds and reading of the input: an amount's `max`, `min` and `received` are decimal
  // strings (spec "Wire format"), which zod's numeric `too_big`/`too_small` cannot carry.
  if (issue.code === 'custom' && issue.params) {
    for (const key of ['received', 'allowed', 'max', 'min'] as const)
      if (issue.params[key] !== undefined) details[key] = issue.params[key];
  }
  if (issue.code === 'invalid_type') message = `\`${name}\` must be ${issue.expected}.`;
  else if (!message.includes('`')) message = `\`${name}\`: ${message}`;
  return new ApiError('validation_error', { message, details });
}

/** Half of a UTF-16 surrogate pair without its other half. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a string holds a character no stored text can: PostgreSQL refuses NUL in text and lone surrogates in JSON. */
export function isUnrepresentable(value: string): boolean {
  return value.includes('\u0000') || LONE_SURROGATE.test(value);
}

/** Where the first unrepresentable string of a parsed query or body is (a key or a value), and that string. */
export interface Unrepresentable {
  path: PropertyKey[];
  text: string;
}

/**
 * The first string in a parsed query or body, key or value, that holds a NUL or a lone surrogate; null when there is
 * none. Bodies are depth-bounded before they are parsed (body.ts), so the walk is too.
 */
export function unrepresentableIn(value: unknown, path: PropertyKey[] = []): Unrepresentable | null {
  if (typeof value === 'string') return isUnrepresentable(value) ? { path, text: value } : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = unrepresentableIn(value[i], [...path, i]);
      if (found) return found;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (isUnrepresentable(key)) return { path: [...path, key], text: key };
      const found = unrepresentableIn(item, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Input is checked for unrepresentable characters before its schema: a string zod accepts would otherwise reach
 * PostgreSQL (or a Temporal payload) and fail there as a 5xx. The name is shown JSON-escaped, as a body spells it.
 */
function refuseUnrepresentable(value: unknown, location: InputLocation): void {
  const found = unrepresentableIn(value);
  if (!found) return;
  const name = JSON.stringify(parameterName(location, found.path)).slice(1, -1);
  const what = found.text.includes('\u0000') ? 'a NUL character' : 'an unpaired UTF-16 surrogate';
  throw new ApiError('validation_error', {
    message: `\`${name}\` contains ${what}, which no value of this API can hold.`,
    details: location === 'header' ? { header: name } : { parameter: name },
  });
}

/**
 * A query parameter given more than once (`label_ids=a&label_ids=b`) arrives as a list, which no parameter takes: the
 * refusal says to give it once, and for a list parameter to join its values with commas.
 */
function refuseRepeatedParameter(schema: z.ZodType, query: unknown): void {
  const repeated = Object.entries(query as Record<string, unknown>).find(([, value]) => Array.isArray(value));
  if (!repeated) return;
  const [name, values] = repeated as [string, unknown[]];
  const field = (schema as { shape?: Record<string, z.ZodType> }).shape?.[name];
  const list = field !== undefined && isCommaSeparated(field);
  throw new ApiError('validation_error', {
    message: list
      ? `\`${name}\` is given ${values.length} times; give it once, its values comma-separated (${name}=a,b).`
      : `\`${name}\` is given ${values.length} times; give it once.`,
    details: { parameter: name, received: describeReceived(values) },
  });
}

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: InputLocation): z.output<S> {
  refuseUnrepresentable(value, location);
  if (location === 'query') refuseRepeatedParameter(schema, value);
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw validationErrorFrom(result.error, location, schema);
  return result.data;
}
