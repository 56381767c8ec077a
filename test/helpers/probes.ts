import { z } from 'zod';
import { defineRoute } from '../../src/http/route';

/**
 * A route of a test's own, declared like the spec's read, print and write endpoints (a `read` rate-limit class, no
 * body), so the real authentication, gates, scopes and rate limits can be exercised without an endpoint's own rules.
 */
export const aProbeRoute = (path: string, scope: string, write = false) =>
  defineRoute({
    method: write ? 'POST' : 'GET',
    path,
    operationId: `probe${path.replace(/\W/g, '')}`,
    summary: 'test only',
    tag: 'Test',
    access: { kind: 'key', scope, write },
    limits: 'read',
    responses: { 200: { description: 'ok', schema: z.object({ ok: z.literal(true) }) } },
    handler: async (ctx) => {
      ctx.body = { ok: true };
    },
  });
