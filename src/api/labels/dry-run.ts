import type { CreationDecision } from '../../domain/creation-decision';
import { EMPTY_RESOLVED } from '../../domain/creation-decision';
import { requestedWire, type CreationRequest } from '../../domain/creation-request';
import type { LabelCreationView } from '../label-creations/serializer';
import type { LabelWire } from './schemas';

type Answer = Exclude<CreationDecision, { kind: 'refuse' }>;

const WOULD = { create: 'create', return_existing: 'return_existing', wait_for_existing: 'wait_for_existing' } as const;

/**
 * The label creation a dry run answers (spec `POST /labels` "Dry run"): `validated`, no ID, nothing created; what the
 * live call would do in `would`, the decision in `resolved`. `labels` are the existing labels a live call would return,
 * or the pending label it would adopt.
 */
export function dryRunView(decision: Answer, request: CreationRequest, labels: LabelWire[]): LabelCreationView {
  return {
    id: null,
    status: 'validated',
    phase: null,
    created: false,
    dryRun: true,
    would: WOULD[decision.kind],
    waitingFor: decision.kind === 'wait_for_existing' ? decision.waitFor : null,
    order: decision.order,
    requested: requestedWire(request),
    resolved: decision.kind === 'create' ? decision.resolved : EMPTY_RESOLVED,
    labels,
    sideEffects: { fulfillment: null, orderTags: null },
    warnings: decision.warnings,
    error: null,
    attention: null,
    resolution: null,
    clientReference: request.clientReference,
    idempotencyKey: null,
    createdAt: null,
    updatedAt: null,
  };
}
