import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/test-app';

// The typed client's types are generated from the document the service serves; `npm run client:generate` runs this
// suite with UPDATE_CLIENT=1 to rewrite them.
const root = join(__dirname, '..', '..');
const schemaPath = join(root, 'client', 'generated', 'schema.d.ts');

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

it('client/generated/schema.d.ts is generated from the served /v1/openapi.json', async () => {
  const served = await app.request('GET', '/v1/openapi.json');
  const generation = spawnSync(process.execPath, [join(root, 'scripts', 'lib', 'client-types.mjs')], {
    input: served.text,
    encoding: 'utf8',
  });
  if (generation.status !== 0) throw new Error(`openapi-typescript failed:\n${generation.stderr}`);
  const generated = generation.stdout;
  if (process.env.UPDATE_CLIENT === '1') writeFileSync(schemaPath, generated);
  const kept = existsSync(schemaPath) ? readFileSync(schemaPath, 'utf8') : '';
  if (kept !== generated) {
    throw new Error('client/generated/schema.d.ts is out of step with /v1/openapi.json: run `npm run client:generate`');
  }
  expect(generated).toContain("'/labels/{label_id}': {");
});
