import { spawn } from 'node:child_process';
import { join } from 'node:path';

const bin = join(__dirname, '..', '..', 'bin', 'labelctl.js');

type Result = { code: number; stdout: string; stderr: string };

/** Runs the operator CLI as a process against the run's database and sandbox (the environment of global setup). */
export function labelctl(...args: string[]): Promise<Result> {
  return labelctlWith({}, ...args);
}

/** `labelctl` with variables of its own on top of the run's environment. */
export function labelctlWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * `labelctl` whose output is not read until it exits or `holdMs` pass, like a pipe into a reader that is slow to start
 * (`| less`): whatever labelctl wrote beyond the pipe's buffer is still in it when it exits, unless it waits for it.
 */
export function labelctlReadLate(env: NodeJS.ProcessEnv, holdMs: number, ...args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.pause();
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    const read = () => child.stdout.resume();
    const timer = setTimeout(read, holdMs);
    child.on('exit', () => {
      clearTimeout(timer);
      read();
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(chunks).toString(), stderr }));
  });
}

/** `labelctl --json ...`, parsed; a failing command fails the test with its stderr. */
export function labelctlJson(...args: string[]): Promise<any> {
  return labelctlJsonWith({}, ...args);
}

export async function labelctlJsonWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<any> {
  const result = await labelctlWith(env, '--json', ...args);
  if (result.code !== 0) throw new Error(`labelctl ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}
