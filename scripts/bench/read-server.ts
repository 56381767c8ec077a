/**
 * A server process for the read-path benchmark: `bare` is Koa + @koa/router answering fixed JSON (the ceiling), `api`
 * is the real app wired as src/server.ts wires it, logging at info to stdout (which the bench discards). Reports
 * `{type: 'ready', port}` over IPC once it listens.
 */
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { Client, Connection } from '@temporalio/client';
import Koa from 'koa';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { openAppDeps } from '../../src/dependencies';
import { createLogger } from '../../src/logger';

async function bare(label: unknown): Promise<Koa> {
  const app = new Koa();
  const router = new Router();
  router.get('/v1/labels/:id', (ctx) => {
    ctx.set('Cache-Control', 'no-store, private');
    ctx.body = label;
  });
  router.get('/v1/labels', (ctx) => {
    ctx.set('Cache-Control', 'no-store, private');
    ctx.body = { data: Array.from({ length: 50 }, () => label), next_cursor: 'x', has_more: true };
  });
  app.use(router.routes());
  return app;
}

async function api(): Promise<Koa> {
  const config = loadConfig();
  // Reads need no Temporal server; a lazy connection is never opened.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const { deps } = await openAppDeps(config, { temporal, logger: createLogger('info') });
  return createApp(deps);
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  const label = JSON.parse(process.env.BENCH_LABEL_JSON ?? '{}') as unknown;
  const app = mode === 'bare' ? await bare(label) : await api();
  const server = app.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
  });
}

void main();
