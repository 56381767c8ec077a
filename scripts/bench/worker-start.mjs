#!/usr/bin/env node
// Starts the worker once and stops it as soon as it is ready to poll (its IPC 'ready' message, sent after the
// workflow code is loaded and the Schedules are ensured); prints the milliseconds to ready. Used with farm-bench in
// docs/benchmarks.md to compare the prebuilt bundle with bundling at start. Needs the worker's usual environment.
import { spawn } from 'node:child_process';

const entry = process.argv[2] ?? 'dist/src/worker.js';
const started = process.hrtime.bigint();
const child = spawn(process.execPath, [entry], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: process.env });
child.on('message', (message) => {
  if (message?.type !== 'ready') return;
  process.stdout.write(`ready in ${Number(process.hrtime.bigint() - started) / 1e6} ms\n`);
  child.kill('SIGTERM');
});
child.once('exit', (code, signal) => process.exit(signal === 'SIGTERM' || code === 0 ? 0 : 1));
