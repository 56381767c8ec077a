import { CarrierRejectedError, CarrierTimeoutError, CarrierUnavailableError } from '../port';
import { httpCall, HttpCallError, type HttpAnswer } from '../../net/http-call';
import { reasonFromNativeCode } from '../sandbox-api/refusal-codes';

export interface CarrierHttpOptions {
  /** Base URL of the sandbox (config `SANDBOX_URL`). */
  baseUrl: string;
  /** Per-call timeout; past it the outcome of a create is unknown. */
  timeoutMs: number;
}

export interface CarrierCall {
  carrierCode: string;
  apiKey: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Names the call in errors; `label` makes a server error a render error. */
  operation: 'create' | 'status' | 'lookup' | 'label' | 'claim' | 'pickup_points';
}

export interface CarrierHttpResponse {
  status: number;
  bytes: Buffer;
  json: <T>() => T;
}

/**
 * One HTTP call to a simulated carrier, classified the way the activities need it: refusals become
 * CarrierRejectedError, 5xx CarrierUnavailableError, no answer CarrierTimeoutError. 2xx and 404/409 are returned.
 */
export async function callCarrier(options: CarrierHttpOptions, call: CarrierCall): Promise<CarrierHttpResponse> {
  let response: HttpAnswer;
  try {
    response = await httpCall({
      url: `${options.baseUrl}${call.path}`,
      method: call.method,
      headers: {
        authorization: `Bearer ${call.apiKey}`,
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      timeoutMs: options.timeoutMs,
    });
  } catch (error) {
    // No answer, or a connection the carrier dropped: whether a create reached it is unknown.
    if (error instanceof HttpCallError) throw new CarrierTimeoutError(call.operation);
    throw error;
  }
  const { bytes } = response;
  const parseJson = <T>() => JSON.parse(bytes.toString('utf8')) as T;
  if (response.status >= 500)
    throw new CarrierUnavailableError(call.operation === 'label' ? 'render_error' : 'carrier_error', response.status);
  if (response.status === 401 || response.status === 422) {
    const { error } = parseJson<{ error?: { code?: string; message?: string } }>();
    throw new CarrierRejectedError(
      reasonFromNativeCode(call.carrierCode, error?.code ?? ''),
      error?.message ?? 'refused',
    );
  }
  if (response.status >= 400 && response.status !== 404 && response.status !== 409) {
    throw new Error(
      `sandbox ${call.carrierCode} answered ${response.status} to ${call.method} ${call.path}: ${bytes.toString('utf8').slice(0, 500)}`,
    );
  }
  return { status: response.status, bytes, json: parseJson };
}
