import type { StoreGates } from '../access/stores';
import { ApiError } from './api-error';

export const HOW_TO_ENABLE =
  'In the store admin, open the app\'s Settings, then API access, and switch on "Enable the API".';
const HOW_TO_UNPAUSE = 'Support paused API access for this store; contact support to have it resumed.';

/** The store gates in the spec's order of error ("Authentication" 6); null when the request may pass. */
export function gateRefusal(store: StoreGates, options: { write: boolean; supportEmail: string }): ApiError | null {
  if (!store.appInstalled) {
    return new ApiError('access_required', {
      message: 'The app is not installed on this store.',
      details: { support_email: options.supportEmail },
    });
  }
  if (!store.apiEnabled) {
    return new ApiError('access_required', {
      details: { how_to_enable: HOW_TO_ENABLE, support_email: options.supportEmail },
    });
  }
  if (store.pausedBySupport) {
    return new ApiError('api_paused', {
      details: { how_to_enable: HOW_TO_UNPAUSE, support_email: options.supportEmail },
    });
  }
  if (!store.subscriptionActive && !store.freeAccess) return new ApiError('plan_required');
  if (options.write && !store.writeAccess) return new ApiError('write_access_required');
  return null;
}
