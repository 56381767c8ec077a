import { ApplicationFailure } from '@temporalio/activity';
import { downloadFeedFile } from '../src/carriers/packeta/feed/download';
import { FeedImportError, importPacketaFeed, type FileImport } from '../src/carriers/packeta/feed/import';
import { packetaPointsStore } from '../src/db/packeta-pickup-points';
import type { ActivityDeps } from './deps';
import { heartbeating } from './label-creation/kit';

/** Failure type of an import that waits for an operator (a refused key, a reading that would empty the network). */
export const FEED_REFUSED = 'packeta_feed_refused';

export interface ImportPacketaFeedResult {
  /** False without PACKETA_FEED_API_KEY: nothing was asked. */
  configured: boolean;
  files: FileImport[];
}

export function createPickupFeedActivities(deps: Pick<ActivityDeps, 'orm' | 'logger' | 'now' | 'packetaFeed'>) {
  return {
    /**
     * Imports Packeta's pickup-point feed (src/carriers/packeta/feed/import.ts). Safe to retry: a rerun writes only what
     * still differs. What passes with time (no answer, a server error, a download cut off) is retried; a refused key or
     * a reading that would empty the network fails at once, recorded on its file for `labelctl` and the metrics.
     */
    async importPacketaFeed(): Promise<ImportPacketaFeedResult> {
      const settings = deps.packetaFeed;
      if (!settings) return { configured: false, files: [] };
      try {
        const files = await heartbeating(() =>
          importPacketaFeed({
            store: packetaPointsStore(deps.orm.em),
            download: (file, validators) => downloadFeedFile(settings, file, validators),
            now: deps.now,
            logger: deps.logger,
            maxVanishedShare: settings.maxVanishedShare,
          }),
        );
        return { configured: true, files };
      } catch (error) {
        if (error instanceof FeedImportError && !error.retryable)
          throw ApplicationFailure.nonRetryable(error.message, FEED_REFUSED);
        throw error;
      }
    },
  };
}
