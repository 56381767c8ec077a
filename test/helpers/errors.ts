import type { TestResponse } from './test-app';

/**
 * The one assertion for the spec's error answer ("Error body"): the status, a JSON body of exactly `code`, `message`,
 * `request_id` (equal to `X-Request-Id`), `doc_url` (the code's section of the error reference) and `details` when
 * there are any, and no header left over from a failed PDF answer. `details` is compared exactly when given; `'none'`
 * asserts there are none.
 */
export function expectError(
  res: TestResponse,
  status: number,
  code: string,
  details?: Record<string, unknown> | 'none',
): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('content-disposition')).toBeNull();
  const error = res.body.error;
  expect(typeof error.message).toBe('string');
  expect(error.request_id).toBe(res.headers.get('x-request-id'));
  expect(error.doc_url).toMatch(new RegExp(`/v1/docs/errors#${code}$`));
  expect(Object.keys(error).sort()).toEqual(
    ['code', 'message', 'request_id', 'doc_url', ...('details' in error ? ['details'] : [])].sort(),
  );
  if (details === 'none') expect(error.details).toBeUndefined();
  else if (details !== undefined) expect(error.details).toEqual(details);
}
