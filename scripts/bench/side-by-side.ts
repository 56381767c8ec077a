import autocannon from 'autocannon';
import { cpuMsOf } from './cpu-sample';

/** A server under load: where to send requests, and its process (whose CPU is read). */
export interface Side {
  url: string;
  pid: number;
  headers: Record<string, string>;
}

export interface SideResult {
  rps: number;
  /** The server process's CPU over the window, per request answered, in µs. */
  cpuUs: number;
  non2xx: number;
}

/**
 * Two servers loaded at once, `connections` each, for `seconds`: each one's throughput and CPU per request over the
 * same window. A machine that drifts (another tenant, the clock speed) drifts for both, so their ratio holds where
 * loads run one after the other differ by more than the effect measured.
 */
export async function sideBySide(
  sides: readonly [Side, Side],
  connections: number,
  seconds: number,
): Promise<[SideResult, SideResult]> {
  const before = sides.map((side) => cpuMsOf(side.pid));
  const results = await Promise.all(
    sides.map((side) => autocannon({ url: side.url, connections, duration: seconds, headers: side.headers })),
  );
  const measured = sides.map((side, i) => {
    const result = results[i]!;
    const cpuMs = cpuMsOf(side.pid) - before[i]!;
    return {
      rps: result.requests.average,
      cpuUs: (cpuMs * 1000) / Math.max(1, result.requests.total),
      non2xx: result.non2xx,
    };
  });
  return [measured[0]!, measured[1]!];
}
