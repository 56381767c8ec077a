import { z } from 'zod';
import { ApiError } from './api-error';
import { decodeCursor } from './cursor';
import type { KeysetPosition } from '../db/labels-query';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 query bound. Inclusive bounds compare at second precision, so fractions are dropped. */
export const instantParam = (description: string) =>
  z
    .string()
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

/** A `limit` query parameter: a whole number from 1 to `max`, `fallback` when absent. */
export const limitParam = (max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max))
    .default(fallback)
    .describe(`1 to ${max}, default ${fallback}`);

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
