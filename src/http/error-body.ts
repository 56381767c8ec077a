import type { ApiError } from './api-error';

/**
 * The spec's error body ("Error body"): `code`, `message`, `details` when there are any, `request_id` (equal to the
 * `X-Request-Id` header) and `doc_url`, the code's section of the error reference under `base` (scheme and host).
 */
export function errorBody(error: ApiError, requestId: string, base: string) {
  const hasDetails = Object.keys(error.details).length > 0;
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(hasDetails ? { details: error.details } : {}),
      request_id: requestId,
      doc_url: `${base}/v1/docs/errors#${error.code}`,
    },
  };
}
