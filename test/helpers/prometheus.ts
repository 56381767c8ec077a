/**
 * The value of the sample `name` whose labels include `labels`, from Prometheus's text format; undefined when there is
 * no such sample.
 */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = new Map(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => present.get(key) === value)) return Number(match[3]);
  }
  return undefined;
}

/** The sum of every sample `name` whose labels include `labels` (0 when there is none). */
export function sampleSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const value = sampleValue(line, name, labels);
    if (value !== undefined) sum += value;
  }
  return sum;
}

/** The first worker's Prometheus endpoint (global setup gives it WORKER_METRICS_PORT). */
export async function scrapeWorker(): Promise<string> {
  const url = process.env.TEST_WORKER_METRICS_URL;
  if (!url) throw new Error('TEST_WORKER_METRICS_URL is not set: run integration tests through jest');
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`worker metrics answered ${res.status}`);
  return res.text();
}
