import type { ActivityDeps } from './deps';
import { createNotificationActivities } from './notifications';
import { createRequestLogActivities } from './request-log';

export type { ActivityDeps } from './deps';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createRequestLogActivities(deps),
    ...createNotificationActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
