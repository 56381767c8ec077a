import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { median } from './median';
import { sideBySide, type Side, type SideResult } from './side-by-side';

interface Server {
  port: number;
  pid: number;
  stop: () => void;
}

export interface TracingCostOptions {
  /** Starts a read server (`api` mode) with this environment. */
  start: (env: NodeJS.ProcessEnv) => Promise<Server>;
  env: NodeJS.ProcessEnv;
  /** The routes' paths, by name: `/v1/labels/{id}` and `/v1/labels?limit=50`. */
  paths: Record<string, string>;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  warmSeconds: number;
  rounds: number;
  /** Only the comparisons whose names match (BENCH_READ_ONLY). */
  only: RegExp | null;
}

/**
 * What tracing costs the read path: each traced configuration and an untraced server, started together and loaded at
 * the same time (half the connections each), so a machine's drift hits both; loads run one after the other differ on
 * this machine by more than tracing costs. Each pair's two servers have served the same requests, and the order in
 * which their loads start alternates by round. First two untraced servers: what the method reads where there is no
 * difference. Prints each comparison and the target line.
 */
export async function tracingCost(options: TracingCostOptions): Promise<void> {
  const sink = await startSpanSink();
  const traced = { ...options.env, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
  const single = '/v1/labels/{id}';
  const page = '/v1/labels?limit=50';
  const variants: Array<[string, NodeJS.ProcessEnv, string[]]> = [
    ['tracing off, a second server', options.env, [single, page]],
    // As configured by default: one read in ten starts a kept trace, at most 10 a second.
    ['tracing on', traced, [single, page]],
    // For the record, no target: every read kept; one in ten without the cap (some 200 a second here); none kept.
    [
      'tracing on, every read kept',
      { ...traced, TRACES_READ_SAMPLE_RATIO: '1', TRACES_READ_SAMPLES_PER_SECOND: 'unlimited' },
      [single, page],
    ],
    ['tracing on, one in ten, no cap', { ...traced, TRACES_READ_SAMPLES_PER_SECOND: 'unlimited' }, [single]],
    ['tracing on, none kept', { ...traced, OTEL_TRACES_SAMPLER_ARG: '0' }, [single]],
  ];
  console.log(
    `  Tracing on beside tracing off (two servers loaded at once, ${options.connections / 2} connections each; medians of ${options.rounds} rounds):`,
  );
  const ratios = new Map<string, number>();
  try {
    for (const [variant, env, routes] of variants) {
      const names = routes.map((route) => `GET ${route}, ${variant}`);
      const wanted = routes.filter((_, i) => !options.only || options.only.test(names[i]!));
      if (wanted.length === 0) continue;
      for (const [route, pairs] of await comparePair(options, env, wanted)) {
        const name = `GET ${route}, ${variant}`;
        ratios.set(name, printComparison(name, pairs));
      }
    }
  } finally {
    sink.stop();
  }
  const ratio = (route: string) => ratios.get(`GET ${route}, tracing on`)?.toFixed(3) ?? 'not run';
  console.log(
    `  ratio tracing on / off: GET /labels/{id} ${ratio(single)}, GET /labels?limit=50 ${ratio(page)} (target at least 0.90; by default one read in ten is kept, at most 10 a second)`,
  );
}

/** One configuration beside an untraced server, each route's rounds as [on, off] pairs. */
async function comparePair(
  options: TracingCostOptions,
  env: NodeJS.ProcessEnv,
  routes: readonly string[],
): Promise<Map<string, Array<[SideResult, SideResult]>>> {
  const on = await options.start(env);
  const off = await options.start(options.env);
  const side = (server: Server, route: string): Side => ({
    url: `http://127.0.0.1:${server.port}${options.paths[route]}`,
    pid: server.pid,
    headers: options.headers,
  });
  const half = options.connections / 2;
  const results = new Map<string, Array<[SideResult, SideResult]>>();
  try {
    for (const route of routes) await sideBySide([side(on, route), side(off, route)], half, options.warmSeconds);
    for (let round = 0; round < options.rounds; round += 1) {
      for (const route of routes) {
        // Whose load starts first alternates: the pair is measured both ways.
        const flip = round % 2 === 1;
        const sides: [Side, Side] = flip ? [side(off, route), side(on, route)] : [side(on, route), side(off, route)];
        await sideBySide(sides, half, 2);
        const [first, second] = await sideBySide(sides, half, options.seconds);
        results.set(route, [...(results.get(route) ?? []), flip ? [second, first] : [first, second]]);
      }
    }
  } finally {
    on.stop();
    off.stop();
  }
  return results;
}

/** One line: throughput beside the untraced server's, its ratio by round, and both servers' CPU per request. */
function printComparison(name: string, pairs: ReadonlyArray<[SideResult, SideResult]>): number {
  const each = pairs.map(([on, off]) => on.rps / off.rps);
  const cpu = pairs.map(([on, off]) => off.cpuUs / on.cpuUs);
  const failed = pairs.reduce((n, [on, off]) => n + on.non2xx + off.non2xx, 0);
  const of = (pick: (pair: [SideResult, SideResult]) => number) => median(pairs.map(pick)).toFixed(0);
  console.log(
    `  ${name.padEnd(48)} ${of(([on]) => on.rps)} req/s beside ${of(([, off]) => off.rps)}: ${median(each).toFixed(3)} (rounds: ${each.map((r) => r.toFixed(2)).join(', ')}); API CPU per request ${of(([on]) => on.cpuUs)} µs beside ${of(([, off]) => off.cpuUs)}: ${median(cpu).toFixed(3)}${failed ? `  (${failed} non-2xx!)` : ''}`,
  );
  return median(each);
}

/** An OTLP/HTTP receiver that reads and drops what it gets: the traced app exports somewhere, as in production. */
function startSpanSink(): Promise<{ url: string; stop: () => void }> {
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  return new Promise((resolve) =>
    sink.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`, stop: () => sink.close() }),
    ),
  );
}
