import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { renderErrorReference } from '../../src/api/meta/error-reference';
import { parseDuration } from '../../src/duration';
import { ApiError } from '../../src/http/api-error';
import { ERROR_CODES } from '../../src/domain/error-catalog';
import { validationErrorFrom } from '../../src/http/validation';
import { hasPrefix, newId } from '../../src/ids';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['15s', 15_000],
    ['5m', 300_000],
    ['24h', 86_400_000],
    ['90d', 7_776_000_000],
    ['250', 250],
    ['1.5s', 1500],
  ])('%s = %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(['', 'soon', '5 minutes', '-1s'])('refuses %j', (text) =>
    expect(() => parseDuration(text)).toThrow(/not a duration/),
  );
});

describe('ids', () => {
  it.each(['label', 'labelCreation', 'carrierAccount', 'apiKey', 'request'] as const)(
    '%s IDs carry their prefix',
    (kind) => {
      const id = newId(kind);
      expect(hasPrefix(kind, id)).toBe(true);
      expect(id).toMatch(/^(lbl|lcr|ca|ak|req)_[A-Za-z0-9]{24}$/);
    },
  );
  it('are unique', () => {
    expect(new Set(Array.from({ length: 1000 }, () => newId('label'))).size).toBe(1000);
  });
});

describe('ApiError', () => {
  it('adds the default retry pair of codes that can end a creation', () => {
    expect(new ApiError('carrier_rejected', { details: { reason: 'other' } }).details).toEqual({
      reason: 'other',
      retry: 'after_fix',
      next_action: 'fix_and_retry',
    });
    expect(new ApiError('unresolved_creation').details).toEqual({ retry: 'manual', next_action: 'manual_check' });
  });
  it('lets the response value win over the default', () => {
    expect(
      new ApiError('carrier_unavailable', { details: { retry: 'after_fix', next_action: 'fix_and_retry' } }).details,
    ).toMatchObject({ retry: 'after_fix' });
  });
  it('never gives internal_error details', () => {
    expect(new ApiError('internal_error', { details: { stack: 'x' } }).details).toEqual({});
  });
  it('has no details for codes without a retry pair', () => {
    expect(new ApiError('not_found').details).toEqual({});
  });
});

describe('validationErrorFrom', () => {
  const schema = z.object({ limit: z.number().max(250), sort: z.enum(['created_at', '-created_at']) }).strict();
  const first = (value: unknown) =>
    validationErrorFrom(schema.safeParse(value, { reportInput: true }).error!, 'query').details;
  it('names an unknown parameter', () =>
    expect(first({ limit: 1, sort: 'created_at', x: 1 })).toMatchObject({ parameter: 'x' }));
  it('gives allowed values of an enum', () =>
    expect(first({ limit: 1, sort: 'x' })).toMatchObject({
      parameter: 'sort',
      received: 'x',
      allowed: ['created_at', '-created_at'],
    }));
  it('gives the maximum', () =>
    expect(first({ limit: 251, sort: 'created_at' })).toMatchObject({ parameter: 'limit', max: 250 }));
  it('names headers as header', () => {
    const error = validationErrorFrom(
      z.object({ 'Idempotency-Key': z.string().min(8) }).safeParse({ 'Idempotency-Key': 'x' }, { reportInput: true })
        .error!,
      'header',
    );
    expect(error.details).toMatchObject({ header: 'Idempotency-Key', received: 'x', min: 8 });
  });
});

describe('error reference (docs/errors.md)', () => {
  const markdown = readFileSync(join(__dirname, '..', '..', 'docs', 'errors.md'), 'utf8');
  it.each(ERROR_CODES)('documents %s', (code) => {
    expect(markdown).toMatch(new RegExp(`^## ${code}$`, 'm'));
  });
  it('renders one anchor per code, with HTML escaped', () => {
    const html = renderErrorReference('## not_found\n404 <b>x</b> `code`\n- item', {
      apiReferenceUrl: 'https://labels.example.com/v1/docs',
    });
    expect(html).toContain('<a href="https://labels.example.com/v1/docs">API reference</a>');
    expect(html).toContain('<h2 id="not_found">not_found</h2>');
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt; <code>code</code>');
    expect(html).toContain('<ul>\n<li>item</li>\n</ul>');
  });
});
