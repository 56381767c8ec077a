import type { StoredAttention } from '../../src/domain/creation-record';
import type { CreationError } from '../../src/domain/refusal';
import { enterNeedsAttention, finishFailed, finishSucceeded } from '../../src/creation/transitions';
import { countCreation, type CreationKit } from './kit';
import type { SucceedInput } from './types';

/** Leaving `processing`: succeeded, failed, or needs attention; each frees the write-queue place and emits the event. */
export function outcomeActivities(kit: CreationKit) {
  const { deps, em } = kit;
  return {
    async succeedCreation(input: SucceedInput): Promise<void> {
      await finishSucceeded(deps.orm, { id: input.creationId, ...input, now: deps.now() });
      await kit.afterSucceeded(input);
    },

    async failCreation(input: {
      creationId: string;
      queueTicketId: string | null;
      error: CreationError;
    }): Promise<void> {
      await finishFailed(deps.orm, { id: input.creationId, error: input.error, now: deps.now() });
      await kit.leftProcessing(input.creationId, input.queueTicketId);
      await kit.publishCreationUpdated(input.creationId, 'failed');
      countCreation('failed');
    },

    async creationNeedsAttention(input: {
      creationId: string;
      queueTicketId: string | null;
      attention: StoredAttention;
    }): Promise<void> {
      await enterNeedsAttention(em(), { id: input.creationId, attention: input.attention, now: deps.now() });
      await kit.leftProcessing(input.creationId, input.queueTicketId);
      await kit.publishCreationUpdated(input.creationId, 'needs_attention');
      countCreation('needs_attention');
    },
  };
}
