import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { freePort, freePortPair } from '../helpers/processes';

// Ports handed to processes that listen later come from below the ephemeral range, where no outgoing connection can
// take them meanwhile (the cluster test's worker once found its metrics port taken: `Address already in use`).
const listens = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

describe('free ports for processes that listen later', () => {
  it('are below every ephemeral range, free, and never handed out twice', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 40; i += 1) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(32_768);
    }
    expect(await Promise.all(ports.slice(0, 5).map(listens))).toEqual([true, true, true, true, true]);
  });

  it('come as a pair in a row, neither handed out again', async () => {
    const first = await freePortPair();
    expect(await Promise.all([listens(first), listens(first + 1)])).toEqual([true, true]);
    const later: number[] = [];
    for (let i = 0; i < 40; i += 1) later.push(await freePort());
    expect(later).not.toContain(first);
    expect(later).not.toContain(first + 1);
  });

  it('in the scripts, avoid the ports already given to the cluster processes', () => {
    // Every even port of the range is given to another process already: each answer is odd. The scripts are ES
    // modules, which this project's jest does not load: they run in a Node process of their own.
    const script = `const { freePort } = await import(${JSON.stringify(join(__dirname, '..', '..', 'scripts/lib/ports.mjs'))});
      const avoid = Array.from({ length: 6000 }, (_, i) => 20000 + 2 * i);
      const ports = [];
      for (let i = 0; i < 20; i += 1) ports.push(await freePort(avoid));
      process.stdout.write(JSON.stringify(ports));`;
    const ports = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
    ) as number[];
    expect(ports).toHaveLength(20);
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) {
      expect(port % 2).toBe(1);
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(32_768);
    }
  });
});
