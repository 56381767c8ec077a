import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';

// docker-compose.yml as Docker would read it (anchors and merge keys resolved), checked for the production shape of
// docs/operators.md: no deprecated auto-setup image, schema job and setup step before the processes that need them,
// healthchecks and restart policies, no secret with a default, and API and workers that scale.
const root = join(__dirname, '..', '..');
const text = readFileSync(join(root, 'docker-compose.yml'), 'utf8');

interface Service {
  image?: string;
  command?: string | string[];
  entrypoint?: string | string[];
  restart?: string;
  healthcheck?: { test?: unknown };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  ports?: string[];
  container_name?: string;
  volumes?: string[];
  stop_grace_period?: string;
}
const compose = load(text) as { services: Record<string, Service> };
const services = compose.services;
const service = (name: string): Service => {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};
const commandOf = (s: Service) => [s.entrypoint ?? [], s.command ?? []].flat().join(' ');
const waitsFor = (name: string, on: string, condition: string) =>
  service(name).depends_on?.[on]?.condition === condition;

/** Services something waits for to complete: the one-shot steps. Every other service runs for good. */
const oneShots = new Set(
  Object.values(services).flatMap((s) =>
    Object.entries(s.depends_on ?? {})
      .filter(([, dependency]) => dependency.condition === 'service_completed_successfully')
      .map(([name]) => name),
  ),
);
const longRunning = Object.keys(services).filter((name) => !oneShots.has(name));

describe('docker-compose.yml', () => {
  it('runs the Temporal server image, not the deprecated auto-setup one', () => {
    expect(text).not.toMatch(/auto-setup/);
    expect(service('temporal').image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    expect(service('temporal').environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
  });

  it("sets up and upgrades both of Temporal's schemas in a one-shot admin-tools job the server waits for", () => {
    const schema = service('temporal-schema');
    expect(schema.image).toMatch(/^temporalio\/admin-tools:/);
    const script = commandOf(schema);
    for (const [database, schemaDir] of [
      ['temporal', 'postgresql/v12/temporal/versioned'],
      ['temporal_visibility', 'postgresql/v12/visibility/versioned'],
    ]) {
      expect(script).toContain(`--db ${database} create`);
      expect(script).toContain(`--db ${database} setup-schema -v 0.0`);
      expect(script).toContain(`--db ${database} update-schema -d /etc/temporal/schema/${schemaDir}`);
    }
    expect(script).toContain('--plugin postgres12');
    expect(waitsFor('temporal-schema', 'postgres', 'service_healthy')).toBe(true);
    expect(waitsFor('temporal', 'temporal-schema', 'service_completed_successfully')).toBe(true);
  });

  it('runs the migrations and the Temporal setup step before any API process or worker starts', () => {
    expect(commandOf(service('temporal-setup'))).toBe('node dist/src/temporal/setup.js');
    expect(waitsFor('temporal-setup', 'temporal', 'service_healthy')).toBe(true);
    expect(commandOf(service('migrate'))).toBe('node dist/src/migrate.js');
    for (const name of ['api', 'worker']) {
      expect(waitsFor(name, 'temporal-setup', 'service_completed_successfully')).toBe(true);
      expect(waitsFor(name, 'migrate', 'service_completed_successfully')).toBe(true);
    }
  });

  it('gives every long-running service a healthcheck and a restart policy, and one-shots a retry on failure', () => {
    expect(longRunning).toEqual(
      expect.arrayContaining(['postgres', 'temporal', 'temporal-ui', 'sandbox', 'worker', 'api', 'proxy']),
    );
    for (const name of longRunning) {
      expect({ name, restart: service(name).restart }).toEqual({
        name,
        restart: expect.stringMatching(/^(always|unless-stopped)$/),
      });
      expect({ name, healthcheck: Array.isArray(service(name).healthcheck?.test) }).toEqual({
        name,
        healthcheck: true,
      });
    }
    expect([...oneShots].sort()).toEqual(['migrate', 'temporal-schema', 'temporal-setup']);
    for (const name of oneShots)
      expect({ name, restart: service(name).restart }).toEqual({ name, restart: 'on-failure' });
  });

  it('has no default for a secret: each one must be given, or compose refuses to start', () => {
    const secretName = /PASSWORD|PWD|SECRET|ENCRYPTION_KEY|API_KEY|TOKEN/;
    // No `${SECRET:-default}` or `${SECRET-default}` anywhere in the file.
    const defaulted = [...text.matchAll(/\$\{([A-Z0-9_]+)(:?-)/g)].map((m) => m[1]!).filter((n) => secretName.test(n));
    expect(defaulted).toEqual([]);
    // Every secret in a service's environment comes from a variable that must be set (`${NAME:?message}`).
    for (const [name, s] of Object.entries(services)) {
      for (const [key, value] of Object.entries(s.environment ?? {})) {
        if (!secretName.test(key)) continue;
        expect({ service: name, key, value }).toEqual({
          service: name,
          key,
          value: expect.stringMatching(/^\$\{[A-Z0-9_]+:\?[^}]+\}$/),
        });
      }
      // Credentials inside a URL too.
      for (const [key, value] of Object.entries(s.environment ?? {}))
        if (/:\/\/[^/@]+:[^/@]+@/.test(value))
          expect({ service: name, key, value }).toEqual({
            service: name,
            key,
            value: expect.stringMatching(/:\/\/[^/:@]+:\$\{[A-Z0-9_]+:\?[^}]+\}@/),
          });
    }
  });

  it('scales workers and API processes: no container name, no fixed host port', () => {
    for (const name of ['api', 'worker']) {
      expect({ name, container_name: service(name).container_name }).toEqual({ name, container_name: undefined });
      expect({ name, ports: service(name).ports }).toEqual({ name, ports: undefined });
    }
    // A worker stopping gets longer than its own shutdown grace (15 s) before Docker kills it.
    expect(service('worker').stop_grace_period).toBe('30s');
  });

  it('reaches every API replica through one reverse proxy that resolves the service name again', () => {
    const proxy = service('proxy');
    expect(waitsFor('proxy', 'api', 'service_healthy')).toBe(true);
    expect(proxy.ports).toEqual(['${API_PORT:-8080}:8080']);
    const mounted = (proxy.volumes ?? []).map((volume) => volume.split(':')[0]!);
    expect(mounted).toEqual(['./deploy/nginx.conf']);
    const nginx = readFileSync(join(root, 'deploy', 'nginx.conf'), 'utf8');
    expect(nginx).toMatch(/resolver 127\.0\.0\.11 valid=\d+s/);
    expect(nginx).toMatch(/set \$api http:\/\/api:3000;/);
    expect(nginx).toMatch(/proxy_pass \$api;/);
    expect(service('api').environment).toMatchObject({ TRUST_PROXY: 'true', HOST: '0.0.0.0' });
  });

  it('gives the API and the worker the public base URL (the worker writes URLs into webhook payloads)', () => {
    for (const name of ['api', 'worker'])
      expect(service(name).environment?.PUBLIC_BASE_URL).toBe('${PUBLIC_BASE_URL:-http://localhost:8080}');
  });
});
