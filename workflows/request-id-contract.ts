/**
 * What the API and the workflows agree on for naming the request behind a workflow: the start's memo entry (the API
 * sets it; workflows/request-id-interceptor.ts reads it for log lines and spans).
 */
export const REQUEST_ID_MEMO = 'request_id';
