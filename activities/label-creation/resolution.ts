import type { CreationError } from '../../src/domain/refusal';
import { abandonCreation, deleteAbandonedCreation, resolveNotCreated } from '../../src/creation/transitions';
import type { Resolution } from '../../src/domain/resolve';
import { countCreation, type CreationKit } from './kit';

/** The ends of an unresolved creation: resolved `not_created`, abandoned, and deleted 90 days after creation. */
export function resolutionActivities(kit: CreationKit) {
  const { deps, em } = kit;
  return {
    /** Resolve `not_created`: failed `resolved_not_created`, locks and key released. */
    async resolveCreationNotCreated(input: {
      creationId: string;
      error: CreationError;
      resolution: Resolution;
    }): Promise<void> {
      const { creationId, ...resolved } = input;
      await resolveNotCreated(deps.orm, { id: creationId, ...resolved, now: deps.now() });
      await kit.publishCreationUpdated(creationId, 'resolved_not_created');
      countCreation('failed');
    },

    /** Resolve `shipment_exists`, or 24 hours in `needs_attention`: abandoned, locks released, key bound. */
    async abandonUnresolvedCreation(input: { creationId: string; resolution: Resolution | null }): Promise<void> {
      await abandonCreation(deps.orm, { id: input.creationId, resolution: input.resolution, now: deps.now() });
      await kit.publishCreationUpdated(input.creationId, 'abandoned');
      countCreation('abandoned');
    },

    /** 90 days after creation: the abandoned creation's record goes, and with it its block on the order. */
    async deleteAbandonedCreation(input: { creationId: string }): Promise<{ deleted: boolean }> {
      return { deleted: await deleteAbandonedCreation(em(), input.creationId) };
    },
  };
}
