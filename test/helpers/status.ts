import type { TestResponse } from './test-app';

/**
 * Asserts an answer's status before anything reads its body, and returns the body: on another status the failure
 * shows what came back (the error body, or the text of an answer that is not JSON), not a `Cannot read properties of
 * undefined` further down. Use `expectError` (errors.ts) for an expected error answer.
 */
export function expectStatus<T = any>(res: TestResponse<T>, status: number): T {
  expect({ status: res.status, ...(res.status === status ? {} : { body: res.body ?? res.text }) }).toEqual({ status });
  return res.body;
}
