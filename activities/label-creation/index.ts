import type { ActivityDeps } from '../deps';
import { attentionActivities } from './attention';
import { finalizeActivities } from './finalize';
import { creationKit } from './kit';
import { outcomeActivities } from './outcome';
import { prepareActivities, prepareStep } from './prepare';
import { resolutionActivities } from './resolution';
import { prepareAndSendActivities } from './prepare-and-send';
import { carrierSend, sendActivities } from './send';

export { endAtScheduleToClose } from './prepare';
export type * from './types';

/** The activities of the label-creation workflow (`workflows/label-creation/`), one group per phase: every side effect. */
export function createLabelCreationActivities(deps: ActivityDeps) {
  const kit = creationKit(deps);
  return {
    ...prepareActivities(kit),
    ...sendActivities(kit),
    ...prepareAndSendActivities(kit, prepareStep(kit), carrierSend(kit)),
    ...finalizeActivities(kit),
    ...outcomeActivities(kit),
    ...attentionActivities(kit),
    ...resolutionActivities(kit),
  };
}

export type LabelCreationActivities = ReturnType<typeof createLabelCreationActivities>;
