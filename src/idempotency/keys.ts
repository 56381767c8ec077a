import { DomainError } from '../domain/errors';

/** Spec "Limits": `Idempotency-Key` length 8 to 255. */
export const IDEMPOTENCY_KEY_LENGTH = { min: 8, max: 255 } as const;

const shown = (key: string) => (key.length > 100 ? `${key.slice(0, 100)}…` : key);

/**
 * The idempotency key of a request. Mark printed takes it from the `Idempotency-Key` header or the
 * `idempotency_key` query parameter and accepts `auto`; label creation takes the header only and refuses `auto`.
 */
export function idempotencyKeyOf(
  input: { header: string | undefined; query?: string | undefined },
  rules: { allowQuery: boolean; allowAuto: boolean },
): string {
  const header = input.header || undefined;
  const fromQuery = rules.allowQuery ? input.query : undefined;
  if (header && fromQuery && header !== fromQuery) {
    throw new DomainError('validation_error', {
      message: 'Send the idempotency key once: in the Idempotency-Key header or the idempotency_key parameter.',
      details: { header: 'Idempotency-Key', parameter: 'idempotency_key' },
    });
  }
  const key = header ?? fromQuery;
  if (!key) {
    throw new DomainError('validation_error', {
      message: rules.allowQuery
        ? 'An idempotency key is required: header Idempotency-Key (or `auto`) or query idempotency_key.'
        : 'An idempotency key is required: header Idempotency-Key.',
      details: { header: 'Idempotency-Key', received: null },
    });
  }
  if (key === 'auto') {
    if (rules.allowAuto) return key;
    throw new DomainError('validation_error', {
      message: '`Idempotency-Key: auto` is not accepted here; send a key of your own (8 to 255 characters).',
      details: { header: 'Idempotency-Key', received: key },
    });
  }
  if (key.length < IDEMPOTENCY_KEY_LENGTH.min || key.length > IDEMPOTENCY_KEY_LENGTH.max) {
    throw new DomainError('validation_error', {
      message: `Idempotency-Key must be ${IDEMPOTENCY_KEY_LENGTH.min} to ${IDEMPOTENCY_KEY_LENGTH.max} characters${rules.allowAuto ? ', or `auto`' : ''}.`,
      details: {
        header: 'Idempotency-Key',
        received: shown(key),
        min: IDEMPOTENCY_KEY_LENGTH.min,
        max: IDEMPOTENCY_KEY_LENGTH.max,
      },
    });
  }
  return key;
}
