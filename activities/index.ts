import type { ActivityDeps } from './deps';
import { createRequestLogActivities } from './request-log';

export type { ActivityDeps } from './deps';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createRequestLogActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
