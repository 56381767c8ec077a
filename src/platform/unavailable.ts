import { DomainError } from '../domain/errors';
import { PlatformAccessError, PlatformAccessLostError, PlatformUnavailableError } from './port';

/** Spec `shopify_unavailable`: `Retry-After: 5` (the spec's value, not the platform's). */
export const PLATFORM_RETRY_AFTER_SECONDS = 5;

/**
 * The spec's `shopify_unavailable` for a platform call (`what` names it) that did not answer usably: `throttled` from
 * the platform. A refused access (a scope the installation lacks, customer data the app is not approved for) is no
 * outage (decision 0706): `details.access` says what it needs and the pair is `after_fix` / `fix_and_retry`, since the
 * merchant (or the app's review) must grant it before the same request can succeed.
 */
export function shopifyUnavailable(error: PlatformUnavailableError, what: string, message?: string): DomainError {
  if (error instanceof PlatformAccessError)
    return new DomainError('shopify_unavailable', {
      message: `The store platform refused the app access to the ${what}: it needs ${error.access}. The merchant grants it by updating the app's access in the store's admin; then send the request again.`,
      details: { what, throttled: false, access: error.access, retry: 'after_fix', next_action: 'fix_and_retry' },
      retryAfterSeconds: PLATFORM_RETRY_AFTER_SECONDS,
    });
  return new DomainError('shopify_unavailable', {
    ...(message ? { message } : {}),
    details: { what, throttled: error.throttled },
    retryAfterSeconds: PLATFORM_RETRY_AFTER_SECONDS,
  });
}

/**
 * Spec `access_required` for a store whose platform no longer accepts the app's tokens (decision 0710): the store's
 * `app_installed` gate is closed with it, so every later request is refused at the gate the same way.
 */
export function accessLost(error: PlatformAccessLostError): DomainError {
  return new DomainError('access_required', {
    message: `The store platform no longer accepts the app's access: ${error.reason} The merchant installs the app again to restore it.`,
    details: { what: error.what, reason: error.reason },
  });
}

/**
 * Whether a refusal is a refused access (`shopifyUnavailable` of a `PlatformAccessError`, or the access lost): reading
 * again does not help.
 */
export const isRefusedAccess = (error: DomainError): boolean =>
  (error.code === 'shopify_unavailable' && typeof error.details.access === 'string') ||
  (error.code === 'access_required' && typeof error.details.reason === 'string');

/** A store-platform call whose unavailability is the spec's `shopify_unavailable` (`what` names the call). */
export async function fromPlatform<T>(what: string, call: () => Promise<T>, message?: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PlatformAccessLostError) throw accessLost(error);
    if (!(error instanceof PlatformUnavailableError)) throw error;
    throw shopifyUnavailable(error, what, message);
  }
}
