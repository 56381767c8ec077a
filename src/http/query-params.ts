import { z } from 'zod';
import { ApiError } from './api-error';
import { decodeCursor } from './cursor';
import type { KeysetPosition } from '../db/labels-query';
import { ID_BODY, ID_PREFIXES, idMaxLength, type IdKind } from '../ids';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
/** The longest value ISO_DATE_TIME matches: nine fraction digits and a `+hh:mm` offset. */
export const INSTANT_MAX_LENGTH = 35;

/**
 * How the OpenAPI document types a query parameter whose schema reads it from the query string: a query string holds
 * text only, so `limit` is parsed from `"5"`, but the spec types it as an integer and a client sends it as one
 * (`labelPages(api, { limit: 5 })`). src/http/openapi.ts writes the registered JSON Schema in place of the string
 * schema zod derives; the registered schema names the same bounds the parser enforces (decision 0804).
 */
export const queryParamWireTypes = new WeakMap<object, Record<string, unknown>>();

function documentedAs<T extends z.ZodType>(schema: T, jsonSchema: Record<string, unknown>): T {
  queryParamWireTypes.set(schema, jsonSchema);
  return schema;
}

/** An ISO 8601 query bound. Inclusive bounds compare at second precision, so fractions are dropped. */
export const instantParam = (description: string) =>
  z
    .string()
    .max(INSTANT_MAX_LENGTH)
    .meta({ format: 'date-time' })
    .describe(description)
    .transform((value, ctx) => {
      const time = ISO_DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(time)) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be an ISO 8601 date-time with an offset, e.g. 2026-10-01T12:00:00Z',
          input: value,
        });
        return z.NEVER;
      }
      return new Date(Math.floor(time / 1000) * 1000);
    });

/** A whole-number query parameter from `min` to `max` (`fallback` when absent): an integer in the document. */
export const integerParam = (options: { min: number; max: number; fallback: number; description: string }) =>
  documentedAs(
    z
      .string()
      .regex(/^\d{1,6}$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(options.min).max(options.max))
      .default(options.fallback)
      .describe(options.description),
    {
      type: 'integer',
      format: 'int32',
      minimum: options.min,
      maximum: options.max,
      default: options.fallback,
      description: options.description,
    },
  );

/** A `limit` query parameter: a whole number from 1 to `max`, `fallback` when absent. */
export const limitParam = (max: number, fallback: number) =>
  integerParam({ min: 1, max, fallback, description: `1 to ${max}, default ${fallback}` });

/** A `true`/`false` query parameter: a boolean in the document. */
export const booleanParam = (description: string) =>
  documentedAs(
    z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .describe(description),
    { type: 'boolean', description },
  );

/**
 * A decimal query parameter from `-bound` to `bound` (a coordinate): a number in the document. Plain decimal notation
 * with up to 20 decimals, which covers how a client library writes any coordinate it holds as a double.
 */
export const coordinateParam = (description: string, bound: number) =>
  documentedAs(
    z
      .string()
      .max(25)
      .regex(/^-?\d{1,3}(\.\d{1,20})?$/, 'must be a decimal number')
      .transform(Number)
      .pipe(z.number().min(-bound).max(bound))
      .describe(description),
    { type: 'number', minimum: -bound, maximum: bound, description },
  );

/** Query parameters that take a list as one comma-separated value (`label_ids=a,b`), as the spec's lists do. */
const commaSeparatedParams = new WeakSet<object>();

/** Marks a query parameter's schema as a comma-separated list (how a repeated parameter's refusal reads). */
export function commaSeparated<T extends z.ZodType>(schema: T): T {
  commaSeparatedParams.add(schema);
  return schema;
}

export const isCommaSeparated = (schema: z.ZodType): boolean => commaSeparatedParams.has(schema);

/**
 * A comma-separated list in one query parameter, at most `maxItems` values of at most `itemMaxLength` characters: the
 * whole value is bounded by what that many values take with a comma and a space between them.
 */
export const listMaxLength = (maxItems: number, itemMaxLength: number) => maxItems * (itemMaxLength + 2);

/**
 * A path parameter holding an ID of the kind, for the OpenAPI document: the router hands path parameters to the
 * handler as text, and a handler answers an ID of another shape 404 `not_found` like an unknown one (spec
 * "Identifiers"), so the pattern and length are the bound the server applies.
 */
export const idPathParam = (kind: IdKind) =>
  z
    .string()
    .max(idMaxLength(kind))
    .regex(new RegExp(`^${ID_PREFIXES[kind]}${ID_BODY.pattern}$`))
    .describe(`\`${ID_PREFIXES[kind]}...\``);

/**
 * The keyset position of a `cursor` parameter, checked against the filters it was issued for; `order` is the list's
 * (a cursor of the first format resumes at the edge of its second on the side the list moves to).
 */
export function positionOfCursor(
  secret: string,
  cursor: string | undefined,
  hash: string,
  order: 'asc' | 'desc',
): KeysetPosition {
  if (cursor === undefined) return null;
  const check = decodeCursor(secret, cursor, hash, order);
  if (check.ok) return check.position;
  throw new ApiError('validation_error', {
    message:
      check.reason === 'other_filters'
        ? 'The cursor belongs to other filters; send the same filters as on the first page, or start without a cursor.'
        : 'The cursor is not a next_cursor this API issued; pass it unchanged.',
    details: { parameter: 'cursor', received: cursor.length > 100 ? `${cursor.slice(0, 100)}…` : cursor },
  });
}
