import { Option, type Command } from 'commander';
import {
  createApiKey,
  isActive,
  revokeApiKey,
  rotateApiKey,
  ROTATION_OVERLAPS,
  type RotationOverlap,
} from '../access/api-keys';
import { ApiKey } from '../db/entities/api-key';
import { isoSeconds, isoSecondsOrNull } from '../domain/wire-format';
import type { CliKit, Row } from './kit';

const keyRow = (k: ApiKey, now: Date): Row => ({
  id: k.id,
  name: k.name,
  scopes: k.scopes.join(','),
  pinned_version: k.pinnedVersion,
  active: isActive(k, now),
  ending_in: k.secretLast4,
  created_at: isoSeconds(k.createdAt),
  expires_at: isoSecondsOrNull(k.expiresAt),
  revoked_at: isoSecondsOrNull(k.revokedAt),
  last_used_at: isoSecondsOrNull(k.lastUsedAt),
});

/** `labelctl key ...`: a store's API keys; a secret is printed once, at creation or rotation. */
export function registerApiKeyCommands(program: Command, kit: CliKit): void {
  const key = program.command('key').description('API keys');
  key
    .command('create <store>')
    .description('create a key; the secret is printed once and never stored')
    .requiredOption('--name <name>')
    .option('--scope <scope...>', 'scopes besides the read scopes every key has', [])
    .action(async (ref: string, opts: { name: string; scope: string[] }) => {
      const { key: created, secret } = await kit.withOrm(async (em) =>
        createApiKey(em, {
          storeId: (await kit.findStore(em, ref)).id,
          name: opts.name,
          scopes: opts.scope,
          now: new Date(),
        }),
      );
      const row = { ...keyRow(created, new Date()), secret };
      kit.print(row, () => `created ${created.id} (${created.scopes.join(', ')})\nsecret (shown once): ${secret}`);
    });

  key
    .command('list <store>')
    .description('list the keys of a store')
    .action(async (ref: string) => {
      const now = new Date();
      const rows = await kit.withOrm(async (em) =>
        (
          await em.find(
            ApiKey,
            { storeId: (await kit.findStore(em, ref)).id },
            { orderBy: { createdAt: 'asc', seq: 'asc' } },
          )
        ).map((k) => keyRow(k, now)),
      );
      kit.print(rows, () =>
        kit.table(rows, ['id', 'name', 'active', 'ending_in', 'scopes', 'expires_at', 'revoked_at', 'last_used_at']),
      );
    });

  key
    .command('rotate <store> <key>')
    .description('create a new key with the same name and scopes; the old one works for the overlap')
    .addOption(
      new Option('--overlap <overlap>', 'how long the old key keeps working')
        .choices(Object.keys(ROTATION_OVERLAPS))
        .default('24h'),
    )
    .action(async (ref: string, keyId: string, opts: { overlap: RotationOverlap }) => {
      const rotated = await kit.withOrm(async (em) =>
        rotateApiKey(em, {
          storeId: (await kit.findStore(em, ref)).id,
          keyId,
          overlap: opts.overlap,
          now: new Date(),
        }),
      );
      const row = {
        ...keyRow(rotated.key, new Date()),
        secret: rotated.secret,
        previous: keyRow(rotated.previous, new Date()),
      };
      kit.print(row, () =>
        [
          `rotated ${rotated.previous.id} -> ${rotated.key.id}`,
          `old key works until ${isoSecondsOrNull(rotated.previous.expiresAt) ?? 'now'}`,
          `secret (shown once): ${rotated.secret}`,
        ].join('\n'),
      );
    });

  key
    .command('revoke <store> <key>')
    .description('stop a key at once')
    .action(async (ref: string, keyId: string) => {
      const revoked = await kit.withOrm(async (em) =>
        revokeApiKey(em, { storeId: (await kit.findStore(em, ref)).id, keyId, now: new Date() }),
      );
      kit.print(keyRow(revoked, new Date()), () => `revoked ${revoked.id}`);
    });
}
