import type { Command } from 'commander';
import { RequestLogEntry } from '../db/entities/request-log-entry';
import { isoSeconds } from '../domain/wire-format';
import { positive, type CliKit } from './kit';

/** `labelctl log <store>`: the tail of a store's API request log. */
export function registerRequestLogCommand(program: Command, kit: CliKit): void {
  program
    .command('log <store>')
    .description("tail a store's API request log (newest last)")
    .option('--limit <n>', 'how many', positive, 20)
    .action(async (ref: string, opts: { limit: number }) => {
      const rows = await kit.withOrm(async (em) => {
        const entries = await em.find(
          RequestLogEntry,
          { storeId: (await kit.findStore(em, ref)).id },
          { orderBy: { id: 'desc' }, limit: opts.limit },
        );
        return entries.reverse().map((e) => ({
          at: isoSeconds(e.createdAt),
          request_id: e.requestId,
          method: e.method,
          endpoint: e.endpoint,
          status: e.status,
          error_code: e.errorCode,
          api_key_id: e.apiKeyId,
          ip: e.ip,
          label_count: e.labelCount,
          byte_size: e.byteSize,
        }));
      });
      kit.print(rows, () =>
        kit.table(rows, ['at', 'method', 'endpoint', 'status', 'error_code', 'api_key_id', 'ip', 'request_id']),
      );
    });
}
