import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** `npm run dev`'s database: each checkout its own, named after it (decision 0039). */
const postgresLib = join(__dirname, '..', '..', 'scripts', 'lib', 'postgres.mjs');

function namesOf(paths: string[]): string[] {
  const script = `const { checkoutDatabaseName } = await import(${JSON.stringify(postgresLib)});
    process.stdout.write(JSON.stringify(${JSON.stringify(paths)}.map((path) => checkoutDatabaseName(path))));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

it('names the database after the checkout, distinct for two checkouts of one name, within PostgreSQL’s 63 bytes', () => {
  const [a, b, long, odd] = namesOf([
    '/home/me/shipping-label-api',
    '/srv/other/shipping-label-api',
    `/x/${'y'.repeat(80)}`,
    '/x/--',
  ]);
  expect(a).toMatch(/^sla_dev_shipping_label_api_[0-9a-f]{6}$/);
  expect(b).toMatch(/^sla_dev_shipping_label_api_[0-9a-f]{6}$/);
  expect(a).not.toBe(b);
  expect(long).toMatch(new RegExp(`^sla_dev_${'y'.repeat(30)}_[0-9a-f]{6}$`));
  expect(odd).toMatch(/^sla_dev_checkout_[0-9a-f]{6}$/);
  for (const name of [a, b, long, odd]) expect(Buffer.byteLength(name!)).toBeLessThanOrEqual(63);
  // The same checkout, the same database, whichever way its path is written.
  expect(namesOf(['/home/me/shipping-label-api/'])[0]).toBe(a);
});
