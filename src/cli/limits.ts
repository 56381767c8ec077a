import type { Command } from 'commander';
import { resetLimitOverride, setLimitOverride, storeLimits } from '../limits/overrides';
import type { CliKit } from './kit';

/** `labelctl limits ...`: a store's rate limits, support's overrides of them, and going back to the spec's. */
export function registerLimitCommands(program: Command, kit: CliKit): void {
  const limits = program
    .command('limits')
    .description("a store's rate limits: the spec's, support's overrides, and the limits in force");
  limits
    .command('show <store>')
    .description('every bucket of the store (ID or domain)')
    .action(async (ref: string) => {
      const rows = await kit.withOrm(async (em) =>
        (await storeLimits(em, (await kit.findStore(em, ref)).id)).map((l) => ({
          bucket: l.bucket,
          scope: l.scope,
          window_seconds: l.windowSeconds,
          default: l.defaultLimit,
          override: l.override,
          limit: l.limit,
        })),
      );
      kit.print(rows, () => kit.table(rows, ['bucket', 'scope', 'window_seconds', 'default', 'override', 'limit']));
    });
  limits
    .command('set <store> <bucket> <limit>')
    .description('set the store’s limit of a bucket (a key bucket: for every key); applies at once in every process')
    .action(async (ref: string, bucket: string, limit: string) => {
      const row = await kit.withOrm(async (em) => {
        const storeId = (await kit.findStore(em, ref)).id;
        await setLimitOverride(em, { storeId, bucket, limit: Number(limit), now: new Date() });
        return { store_id: storeId, bucket, limit: Number(limit) };
      });
      kit.print(row, () => `${row.store_id}: ${bucket} limit ${row.limit}`);
    });
  limits
    .command('reset <store> <bucket>')
    .description('back to the spec’s limit of the bucket')
    .action(async (ref: string, bucket: string) => {
      const row = await kit.withOrm(async (em) => {
        const storeId = (await kit.findStore(em, ref)).id;
        return { store_id: storeId, bucket, had_override: await resetLimitOverride(em, { storeId, bucket }) };
      });
      kit.print(row, () =>
        row.had_override
          ? `${row.store_id}: ${bucket} back to the spec's limit`
          : `${row.store_id}: ${bucket} had no override`,
      );
    });
}
