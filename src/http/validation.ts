import type { z } from 'zod';
import { ApiError } from './api-error';

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

/** Turns the first zod issue into the spec's 422 `validation_error` with `parameter`/`header`, `received`, `allowed`. */
export function validationErrorFrom(error: z.ZodError, location: InputLocation): ApiError {
  const issue = error.issues[0]!;
  const details: Record<string, unknown> = {};
  let path = issue.path;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path = [...issue.path, issue.keys[0]!];
    message = `Unknown ${location === 'query' ? 'query parameter' : 'field'} \`${parameterName(location, path)}\`.`;
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

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: InputLocation): z.output<S> {
  refuseUnrepresentable(value, location);
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw validationErrorFrom(result.error, location);
  return result.data;
}
