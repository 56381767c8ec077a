import type { ShippingLabelClient } from './client.js';
import { retryAfterSeconds, ShippingLabelApiError } from './errors.js';
import type { CreateLabelRequest, LabelCreation } from './types.js';

export interface CreateLabelOptions {
  /** The request's Idempotency-Key; default: a new random one. Send the same key to repeat a request safely. */
  idempotencyKey?: string;
  /** `Prefer: wait=N`: how long the API holds each answer for the result, 0 to 60 seconds (default 20). */
  waitSeconds?: number;
  /** Stop polling after this long (default 15 minutes) and throw; the creation goes on in the service. */
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Thrown when a creation is still `processing` after `timeoutMs`: look it up later by `labelCreationId`. */
export class CreationStillProcessing extends Error {
  override name = 'CreationStillProcessing';
  constructor(readonly labelCreationId: string) {
    super(`label creation ${labelCreationId} is still processing`);
  }
}

/**
 * `POST /labels`, then the creation until it leaves `processing`: returns the final label creation (`succeeded`,
 * `needs_attention`, ...; `status` says which, `labels` holds the label). The Idempotency-Key is generated unless
 * given, so a retry of the whole call with the same key never creates twice. A refused request (a validation error,
 * a carrier's refusal, `unresolved_creation`, ...) throws `ShippingLabelApiError` with the error body.
 */
export async function createLabel(
  api: ShippingLabelClient,
  body: CreateLabelRequest,
  options: CreateLabelOptions = {},
): Promise<LabelCreation> {
  const wait = `wait=${options.waitSeconds ?? 20}`;
  const deadline = Date.now() + (options.timeoutMs ?? 15 * 60_000);
  const created = await api.POST('/labels', {
    params: { header: { 'Idempotency-Key': options.idempotencyKey ?? crypto.randomUUID(), Prefer: wait } },
    body,
  });
  if (created.error) throw new ShippingLabelApiError(created.response.status, created.error, created.response.headers);
  let creation = created.data as LabelCreation;
  let response = created.response;
  while (creation.status === 'processing') {
    const id = creation.id;
    // A dry run has no ID and never processes; kept for the types' sake.
    if (id === null) return creation;
    if (Date.now() >= deadline) throw new CreationStillProcessing(id);
    // The API says when to look again (2 s while processing); Prefer: wait holds the next answer for the result.
    await sleep((retryAfterSeconds(response.headers) ?? 2) * 1000);
    const read = await api.GET('/label-creations/{label_creation_id}', {
      params: { path: { label_creation_id: id }, header: { Prefer: wait } },
    });
    if (read.error) throw new ShippingLabelApiError(read.response.status, read.error, read.response.headers);
    creation = read.data;
    response = read.response;
  }
  return creation;
}
