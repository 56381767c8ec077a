import { patched } from '@temporalio/workflow';
import { prepareAndSend, prepareThenSend } from './prepare-and-send';
import { CreationRun } from './run';
import type { CreationSnapshot, LabelCreationInput, LabelCreationWorkflow } from './contract';

/** The patch of decision 1010 (prepare in the carrier call); histories recorded before it replay without it. */
const PREPARE_IN_CARRIER_CALL = 'prepare-in-carrier-call';

/**
 * One label creation attempt (`lcr_...`) of `POST /labels` (spec "Label creation"): workflow ID
 * `label-creation/<store>/<idempotency key>`, one run per attempt. The API claimed the creation record (binding the
 * key) before it started this run; every later write of the record is an activity of this workflow. The decision is
 * the same pure function the dry run uses (`src/domain/creation-decision.ts`), over a snapshot an activity loads.
 *
 * Its phases: prepare, decide and lock, and on a decision to create the carrier call, in one activity
 * (`prepare-and-send.ts`), else the workflow's own prepare step (`prepare.ts`); the carrier call and what its answer
 * asks for (`send.ts`); finalizing (`finalize.ts`); an unclear outcome (`attention.ts`) until it is resolved or
 * abandoned (`resolution.ts`), and the abandoned record's retention (`retention.ts`).
 */
export const labelCreationWorkflow: LabelCreationWorkflow = async function labelCreationWorkflow(
  input: LabelCreationInput,
): Promise<CreationSnapshot> {
  const run = new CreationRun(input);
  run.setHandlers();
  if (patched(PREPARE_IN_CARRIER_CALL)) {
    await prepareAndSend(run);
    return run.finish();
  }
  // Runs started before decision 1010: a prepare step of their own, then the carrier call.
  await prepareThenSend(run);
  return run.finish();
};
