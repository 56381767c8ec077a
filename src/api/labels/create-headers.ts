import { z } from 'zod';
import { ApiError } from '../../http/api-error';

/** Spec `POST /labels` request headers and "Limits". */
export const CREATE_KEY_LENGTH = { min: 8, max: 255 } as const;
export const PREFER_WAIT = { min: 0, max: 60, default: 20 } as const;
/**
 * A `Prefer` header longer than this is refused: `wait=60` takes 7 characters, and the spec defines no other
 * preference, so the bound leaves room for a client's own ones while every header the API reads has one.
 */
export const PREFER_MAX_LENGTH = 255;

/** The headers' shapes for the OpenAPI document; the functions below enforce them. */
export const creationKeyHeaderSchema = z.string().min(CREATE_KEY_LENGTH.min).max(CREATE_KEY_LENGTH.max);
export const preferHeaderSchema = z
  .string()
  .max(PREFER_MAX_LENGTH)
  .meta({ examples: ['wait=20'] });

const shown = (value: string) => (value.length > 100 ? `${value.slice(0, 100)}…` : value);

/**
 * `Idempotency-Key` of a live `POST /labels`: required, 8 to 255 characters, header only, `auto` not accepted (spec).
 * A dry run never calls this: the key is ignored there.
 */
export function creationIdempotencyKey(header: string | undefined): string {
  if (header === undefined || header === '') {
    throw new ApiError('validation_error', {
      message: 'POST /labels needs an Idempotency-Key header (8 to 255 characters); dry runs do not.',
      details: { header: 'Idempotency-Key', received: null },
    });
  }
  if (header === 'auto') {
    throw new ApiError('validation_error', {
      message: 'Idempotency-Key: auto is not accepted on POST /labels; send a key of your own (8 to 255 characters).',
      details: { header: 'Idempotency-Key', received: 'auto' },
    });
  }
  if (header.length < CREATE_KEY_LENGTH.min || header.length > CREATE_KEY_LENGTH.max) {
    throw new ApiError('validation_error', {
      message: `Idempotency-Key must be ${CREATE_KEY_LENGTH.min} to ${CREATE_KEY_LENGTH.max} characters.`,
      details: {
        header: 'Idempotency-Key',
        received: shown(header),
        min: CREATE_KEY_LENGTH.min,
        max: CREATE_KEY_LENGTH.max,
      },
    });
  }
  return header;
}

/**
 * The `wait=N` preference of a `Prefer` header (RFC 7240: comma-separated preferences; others are ignored): N whole
 * seconds, 0 to 60, default 20. A malformed or out-of-range `wait` is a 422 like any bad header.
 */
export function preferWaitSeconds(header: string | undefined): number {
  if (!header) return PREFER_WAIT.default;
  if (header.length > PREFER_MAX_LENGTH) {
    throw new ApiError('validation_error', {
      message: `Prefer is longer than ${PREFER_MAX_LENGTH} characters.`,
      details: { header: 'Prefer', received: shown(header), max: PREFER_MAX_LENGTH },
    });
  }
  const wait = header
    .split(/[,;]/)
    .map((part) => part.trim())
    .find((part) => /^wait\s*=/i.test(part));
  if (wait === undefined) return PREFER_WAIT.default;
  const value = wait.replace(/^wait\s*=\s*/i, '').replace(/^"(.*)"$/, '$1');
  const seconds = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isNaN(seconds) || seconds > PREFER_WAIT.max) {
    throw new ApiError('validation_error', {
      message: `Prefer: wait=N takes whole seconds from ${PREFER_WAIT.min} to ${PREFER_WAIT.max}.`,
      details: { header: 'Prefer', received: shown(header), min: PREFER_WAIT.min, max: PREFER_WAIT.max },
    });
  }
  return seconds;
}
