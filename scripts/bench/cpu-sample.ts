import { readFileSync, readdirSync } from 'node:fs';

/**
 * CPU used by every process on the machine between two samples, grouped by role (read from `/proc`): where a load's
 * CPU goes when the API, the worker, the Temporal server, PostgreSQL and the sandbox share the cores.
 */
export type CpuSample = Map<number, { role: string; ticks: number }>;

const TICKS_PER_SECOND = 100;

function roleOf(pid: number): string | null {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return null;
  }
  if (cmdline.startsWith('postgres')) return 'PostgreSQL';
  if (/temporal(-\S+)? server start-dev/.test(cmdline)) return 'Temporal server';
  if (cmdline.includes('src/worker.ts') || cmdline.includes('dist/src/worker.js')) return 'worker';
  if (cmdline.includes('sandbox-server.ts')) return 'sandbox';
  if (cmdline.includes('dist/src/server.js')) return 'API';
  const readServer = /scripts\/bench\/read-server\.ts (\S+)/.exec(cmdline);
  if (readServer) return `read server (${readServer[1]})`;
  if (cmdline.includes('scripts/bench/run.ts')) return 'bench process (load, floor worker)';
  return 'other';
}

function ticksOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 14th and 15th of the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** A process's CPU (user and system) since it started, in milliseconds; NaN once it is gone. */
export function cpuMsOf(pid: number): number {
  const ticks = ticksOf(pid);
  return ticks === null ? NaN : (ticks * 1000) / TICKS_PER_SECOND;
}

export function sampleCpu(): CpuSample {
  const sample: CpuSample = new Map();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const role = roleOf(pid);
    const ticks = ticksOf(pid);
    if (role !== null && ticks !== null) sample.set(pid, { role, ticks });
  }
  return sample;
}

/** Milliseconds of CPU per role between `before` and now; a process started in between counts from zero. */
export function cpuSince(before: CpuSample): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const [pid, { role, ticks }] of sampleCpu()) {
    const used = ticks - (before.get(pid)?.ticks ?? 0);
    byRole.set(role, (byRole.get(role) ?? 0) + (used * 1000) / TICKS_PER_SECOND);
  }
  return byRole;
}

/** One line per role: CPU per unit of work (`per` units done between the samples), largest first, and the total. */
export function formatCpu(used: Map<string, number>, per: number, unit: string): string[] {
  const rows = [...used].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  return [
    ...rows.map(([role, ms]) => `    ${role.padEnd(42)} ${(ms / per).toFixed(1).padStart(6)} ms per ${unit}`),
    `    ${'all processes'.padEnd(42)} ${(total / per).toFixed(1).padStart(6)} ms per ${unit}`,
  ];
}
