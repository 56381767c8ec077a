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

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: InputLocation): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw validationErrorFrom(result.error, location);
  return result.data;
}
