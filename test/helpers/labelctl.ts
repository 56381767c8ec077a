import { spawn } from 'node:child_process';
import { join } from 'node:path';

const bin = join(__dirname, '..', '..', 'bin', 'labelctl.js');

/** Runs the operator CLI as a process against the run's database and sandbox (the environment of global setup). */
export function labelctl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** `labelctl --json ...`, parsed; a failing command fails the test with its stderr. */
export async function labelctlJson(...args: string[]): Promise<any> {
  const result = await labelctl('--json', ...args);
  if (result.code !== 0) throw new Error(`labelctl ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}
