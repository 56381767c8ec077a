/**
 * The state changes of a creation record, as its workflow's activities make them (spec "Label creation `status`"),
 * one module per part of the creation: preparing (the phase, the decision, the locks), sending (the fenced mark of the
 * carrier call), the shipment recorded, the outcomes, and an unclear outcome's attention and ends. Every change stamps
 * `updated_at` (which also keeps the creation's locks live); every change out of `processing` releases or keeps the
 * locks in the same transaction as the status; every status and phase written follows the creation phase table
 * (`phase-sql.ts`).
 */
export {
  abandonCreation,
  deleteAbandonedCreation,
  enterNeedsAttention,
  resolveNotCreated,
  updateAttention,
} from './attention';
export { failUnstarted, finishFailed, finishSucceeded, unstartedCreations } from './outcomes';
export { beginAttempt, beginPreparing, recordDecision, setPhase, takeLocks } from './preparing';
export { markSent, recordedSentAt, sendingState, sentPlan } from './sending';
export { finalizeLabel, recordShipment, storeDocument, type AcceptedShipment } from './shipment';
