import { sendToCarrier } from './send';
import { prepareAndLock } from './prepare';
import { CreationRun } from './run';
import type { CreationSnapshot, LabelCreationInput, LabelCreationWorkflow } from './contract';

/**
 * One label creation attempt (`lcr_...`) of `POST /labels` (spec "Label creation"): workflow ID
 * `label-creation/<store>/<idempotency key>`, one run per attempt. The API claimed the creation record (binding the
 * key) before it started this run; every later write of the record is an activity of this workflow. The decision is
 * the same pure function the dry run uses (`src/domain/creation-decision.ts`), over a snapshot an activity loads.
 *
 * Its phases: prepare, decide and lock (`prepare.ts`); the carrier call and what its answer asks for (`send.ts`);
 * finalizing (`finalize.ts`); an unclear outcome (`attention.ts`) until it is resolved or abandoned
 * (`resolution.ts`), and the abandoned record's retention (`retention.ts`).
 */
export const labelCreationWorkflow: LabelCreationWorkflow = async function labelCreationWorkflow(
  input: LabelCreationInput,
): Promise<CreationSnapshot> {
  const run = new CreationRun(input);
  run.setHandlers();
  const prepared = await prepareAndLock(run);
  if (prepared.kind === 'send') {
    run.state.phase = 'sending_to_carrier';
    run.state.waitingFor = null;
    run.describe();
    await sendToCarrier(run, prepared.decision, prepared.prepared);
  }
  return run.finish();
};
