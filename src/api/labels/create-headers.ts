import { ApiError } from '../../http/api-error';

/** Spec `POST /labels` request headers and "Limits". */
export const CREATE_KEY_LENGTH = { min: 8, max: 255 } as const;
export const PREFER_WAIT = { min: 0, max: 60, default: 20 } as const;

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
