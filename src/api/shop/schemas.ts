import { z } from 'zod';
import { ALL_SCOPES } from '../../access/scopes';

export const shopSchema = z
  .object({
    id: z.string().describe('Store ID (`st_...`)'),
    name: z.string(),
    domain: z.string().describe('Store platform domain'),
    api_key: z.object({
      id: z.string().describe('`ak_...` of the calling key'),
      name: z.string(),
      scopes: z.array(z.enum(ALL_SCOPES)).describe('Scopes the key holds, implied ones included'),
      pinned_version: z.string().describe('Version used when a request sends no Service-Version'),
      created_at: z.string(),
      expires_at: z.string().nullable().describe('Set while a rotation overlap runs; null otherwise'),
    }),
    api_version: z.string().describe('Version this response is rendered in'),
    access: z.object({
      api_enabled: z.boolean(),
      paused: z.boolean(),
      plan: z.enum(['subscription', 'free_access']),
      write_access: z
        .boolean()
        .describe(
          'Whether the write endpoints (`POST /labels`, dry runs included, `POST /labels/{id}/printed`, resolve) answer; false means 403 `write_access_required`',
        ),
    }),
    limits: z.object({ max_active_api_keys: z.number().int(), request_log_retention_days: z.number().int() }),
  })
  .describe('The store the calling key belongs to');
