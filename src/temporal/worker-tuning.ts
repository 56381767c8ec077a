import type { WorkerSettings } from '../config/worker';

/** `Worker.create` options from the configuration; what is not configured is left out, so the SDK's default holds. */
export function workerTuning(settings: WorkerSettings) {
  const { shutdownGraceTimeMs, ...limits } = settings;
  const set = Object.entries(limits).filter(([, value]) => value !== undefined);
  return {
    ...(Object.fromEntries(set) as Partial<Omit<WorkerSettings, 'shutdownGraceTimeMs'>>),
    shutdownGraceTime: shutdownGraceTimeMs,
  };
}
