import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LatencyResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

const isList = (
  h: Record<string, string> | ReadonlyArray<Record<string, string>>,
): h is ReadonlyArray<Record<string, string>> => Array.isArray(h);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/**
 * GETs `url` for `seconds` over `connections` kept-alive sockets: back to back (closed loop, saturating), or at `rate`
 * requests per second (open loop: a request's latency counts from when it was due, queueing included). Latencies keep
 * sub-millisecond precision, which a 10 % comparison of ~10 ms answers needs (autocannon rounds to whole ms). With a
 * list of headers (several API keys), connection `i` (or the `i`-th request at a rate) sends the `i`-th, round robin.
 */
export async function measureLatency(
  url: string,
  headerSets: Record<string, string> | ReadonlyArray<Record<string, string>>,
  load: { connections: number; rate?: number; seconds: number },
): Promise<LatencyResult> {
  const sets: ReadonlyArray<Record<string, string>> = isList(headerSets) ? headerSets : [headerSets];
  const headersOf = (i: number): Record<string, string> => sets[i % sets.length]!;
  const agent = new Agent({ keepAlive: true, maxSockets: load.connections });
  const latencies: number[] = [];
  let non2xx = 0;
  const once = (headers: Record<string, string>) =>
    new Promise<void>((resolve, reject) => {
      const start = process.hrtime.bigint();
      const req = request(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
          if ((res.statusCode ?? 0) >= 300) non2xx += 1;
          resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });
  const started = Date.now();
  const until = started + load.seconds * 1000;
  if (load.rate) {
    const inFlight = new Set<Promise<void>>();
    let due = started;
    for (let i = 0; due < until; i += 1) {
      const sent = once(headersOf(i)).finally(() => inFlight.delete(sent));
      inFlight.add(sent);
      due += 1000 / load.rate;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
    }
    await Promise.all(inFlight);
  } else {
    await Promise.all(
      Array.from({ length: load.connections }, async (_, i) => {
        while (Date.now() < until) await once(headersOf(i));
      }),
    );
  }
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return { rps: sorted.length / elapsed, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), non2xx };
}
