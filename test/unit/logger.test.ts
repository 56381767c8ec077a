import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Lines are gathered for fewer writes, yet a process that logs one line and stays quiet shows it at once. */
describe('the logger', () => {
  it("writes a quiet process's line within a fraction of a second, and what is left when it exits", async () => {
    const logger = join(__dirname, '..', '..', 'src', 'logger.ts');
    const script = `
      const { createLogger } = require(${JSON.stringify(logger)});
      const log = createLogger('info', 'logger-test');
      log.info('first line');
      setTimeout(() => { log.info('last line'); process.exit(0); }, 1500);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    // What had arrived when the first line showed: without a timely write both lines come together at the exit.
    const seenWithFirst = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('first line')) resolve(output);
      });
      child.once('exit', () => reject(new Error(`exited before the first line showed: ${output}`)));
    });
    await new Promise((resolve) => child.once('exit', resolve));
    // Well before the process logs again and exits (1.5 s after its first line).
    expect(seenWithFirst).not.toContain('last line');
    expect(output).toContain('"msg":"last line"');
  }, 20_000);
});
