import { createHash, randomUUID } from 'node:crypto';
import type { Orm } from '../db/orm';
import { DomainError } from '../domain/errors';
import { ApiError, apiErrorFromDomain } from '../http/api-error';

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface IdempotentRequest {
  storeId: string;
  /** Route template, e.g. `POST /labels/{label_id}/printed`. */
  endpoint: string;
  /** The caller's key, or `auto` to derive it from the request. */
  key: string;
  /** What identifies the request: the same key with another request is a conflict. */
  request: unknown;
  now: Date;
  /** How long a key replays its first answer (24 hours on printed). */
  ttlMs: number;
  /** With `auto`: an identical request this soon is refused as a duplicate (60 seconds). */
  autoWindowMs: number;
  /**
   * How long an in-flight claim survives without renewal. The running request renews it every third of this; a
   * process that dies mid-request loses its claim this long afterwards and the key can be used again.
   */
  leaseMs: number;
}

export type IdempotentOutcome =
  { replayed: false; response: StoredResponse } | { replayed: true; response: StoredResponse };

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

interface Row {
  request_hash: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_body: unknown;
  response_headers: Record<string, string> | null;
  created_at: Date;
}

/**
 * Runs `handler` at most once per idempotency key (spec `POST /labels/{label_id}/printed` 1-3): a repeat within the
 * TTL replays the first answer (a stored 4xx is thrown again with `Idempotency-Replayed: true`); a repeat while the
 * first runs is 409 `idempotency_conflict` (`state: in_flight`, `Retry-After: 2`); another request under the same key
 * is 409 `idempotency_conflict`; with `auto` the key is derived from the request and an identical request inside the
 * window is 409 `duplicate_request`. A 5xx releases the key so
 * the request can be sent again, and so does a crash: the in-flight claim is a lease (`lease_expires_at`, database
 * clock, so every process agrees) renewed while the handler runs.
 */
export async function runIdempotent(
  orm: Orm,
  input: IdempotentRequest,
  handler: () => Promise<StoredResponse>,
): Promise<IdempotentOutcome> {
  const auto = input.key === 'auto';
  const requestHash = hash(input.request);
  const key = auto ? `auto:${requestHash}` : input.key;
  const em = orm.em.fork();
  const owner = randomUUID();
  const leaseSeconds = input.leaseMs / 1000;
  // Claim the key unless a live record holds it: a completed one past its window, or an in-flight one whose lease
  // ran out (its process died), is taken over as if it did not exist.
  const staleBefore = new Date(input.now.getTime() - (auto ? input.autoWindowMs : input.ttlMs));
  const claimed = await em.execute<Array<{ key: string }>>(
    `insert into idempotency_keys (store_id, endpoint, key, request_hash, state, created_at, owner, lease_expires_at)
     values (?, ?, ?, ?, 'in_flight', ?, ?, now() + make_interval(secs => ?))
     on conflict (store_id, endpoint, key) do update
       set request_hash = excluded.request_hash, state = 'in_flight', response_status = null, response_body = null,
           response_headers = null, created_at = excluded.created_at, completed_at = null, owner = excluded.owner,
           lease_expires_at = excluded.lease_expires_at
       where (idempotency_keys.state = 'completed' and idempotency_keys.created_at <= ?)
          or (idempotency_keys.state = 'in_flight' and idempotency_keys.lease_expires_at <= now())
     returning key`,
    [input.storeId, input.endpoint, key, requestHash, input.now, owner, leaseSeconds, staleBefore],
  );
  if (claimed.length === 0) {
    const [existing] = await em.execute<Row[]>(
      'select request_hash, state, response_status, response_body, response_headers, created_at from idempotency_keys where store_id = ? and endpoint = ? and key = ?',
      [input.storeId, input.endpoint, key],
    );
    if (existing) return answerRepeat(existing, input, auto, requestHash);
    return runIdempotent(orm, input, handler);
  }

  const mine = { storeId: input.storeId, endpoint: input.endpoint, key, owner };
  const renewal = setInterval(() => {
    em.execute(
      `update idempotency_keys set lease_expires_at = now() + make_interval(secs => ?)
        where store_id = ? and endpoint = ? and key = ? and owner = ? and state = 'in_flight'`,
      [leaseSeconds, mine.storeId, mine.endpoint, mine.key, mine.owner],
    ).catch(() => undefined);
  }, input.leaseMs / 3);
  renewal.unref();
  let response: StoredResponse;
  try {
    response = await handler();
  } catch (thrown) {
    const error = thrown instanceof DomainError ? apiErrorFromDomain(thrown) : thrown;
    if (error instanceof ApiError && error.status < 500) {
      await complete(orm, mine, { status: error.status, body: { __error: serializeApiError(error) }, headers: {} });
    } else {
      await release(orm, mine);
    }
    throw error;
  } finally {
    clearInterval(renewal);
  }
  if (response.status >= 500) await release(orm, mine);
  else await complete(orm, mine, response);
  return { replayed: false, response };
}

/**
 * Whether a request would replay a stored answer (the same request under a completed key within its TTL): such a repeat
 * counts as a read, not as a write (spec "Limits"). `auto` keys never replay: an identical request inside their window
 * is a `duplicate_request`, after it a new request.
 */
export async function isReplay(
  orm: Orm,
  input: Pick<IdempotentRequest, 'storeId' | 'endpoint' | 'key' | 'request' | 'now' | 'ttlMs'>,
): Promise<boolean> {
  if (input.key === 'auto') return false;
  const [row] = await orm.em.fork().execute<Array<{ hit: boolean }>>(
    `select true as hit from idempotency_keys
        where store_id = ? and endpoint = ? and key = ? and request_hash = ? and state = 'completed' and created_at > ?`,
    [input.storeId, input.endpoint, input.key, hash(input.request), new Date(input.now.getTime() - input.ttlMs)],
  );
  return row !== undefined;
}

type Claim = { storeId: string; endpoint: string; key: string; owner: string };

/** Only the claim's owner completes or releases it: after a lost lease the key may belong to another request. */
async function complete(orm: Orm, claim: Claim, response: StoredResponse): Promise<void> {
  await orm.em.fork().execute(
    `update idempotency_keys set state = 'completed', response_status = ?, response_body = ?::jsonb,
            response_headers = ?::jsonb, completed_at = now(), lease_expires_at = null
      where store_id = ? and endpoint = ? and key = ? and owner = ?`,
    [
      response.status,
      JSON.stringify(response.body),
      JSON.stringify(response.headers),
      claim.storeId,
      claim.endpoint,
      claim.key,
      claim.owner,
    ],
  );
}

async function release(orm: Orm, claim: Claim): Promise<void> {
  await orm.em
    .fork()
    .execute('delete from idempotency_keys where store_id = ? and endpoint = ? and key = ? and owner = ?', [
      claim.storeId,
      claim.endpoint,
      claim.key,
      claim.owner,
    ]);
}

function serializeApiError(error: ApiError) {
  return {
    code: error.code,
    message: error.message,
    details: error.details,
    headers: error.headers,
    status: error.status,
  };
}

function answerRepeat(row: Row, input: IdempotentRequest, auto: boolean, requestHash: string): IdempotentOutcome {
  if (auto) {
    const ranSecondsAgo = Math.max(0, Math.floor((input.now.getTime() - new Date(row.created_at).getTime()) / 1000));
    const retryAfter = Math.max(1, Math.ceil(input.autoWindowMs / 1000) - ranSecondsAgo);
    throw new ApiError('duplicate_request', {
      message: 'An identical request ran moments ago; it was not counted again.',
      details: { ran_seconds_ago: ranSecondsAgo, retry_after_seconds: retryAfter },
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  if (row.request_hash !== requestHash) {
    throw new ApiError('idempotency_conflict', {
      message: 'This idempotency key was used for a different request.',
      details: { idempotency_key: input.key },
    });
  }
  if (row.state === 'in_flight') {
    throw new ApiError('idempotency_conflict', {
      message: 'The first request with this idempotency key is still running.',
      details: { idempotency_key: input.key, state: 'in_flight', retry: 'later', next_action: 'retry_later' },
      headers: { 'Retry-After': '2' },
    });
  }
  const body = row.response_body as { __error?: ReturnType<typeof serializeApiError> } | null;
  if (body && typeof body === 'object' && body.__error) {
    const e = body.__error;
    // A replayed 4xx says so like a replayed success (decision 0006): the client learns nothing ran this time.
    throw new ApiError(e.code, {
      message: e.message,
      details: e.details,
      headers: { ...e.headers, 'Idempotency-Replayed': 'true' },
      status: e.status,
    });
  }
  return {
    replayed: true,
    response: { status: row.response_status ?? 200, body: row.response_body, headers: row.response_headers ?? {} },
  };
}
