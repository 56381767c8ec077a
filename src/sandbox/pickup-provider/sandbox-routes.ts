import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { BadRequest, json, sleep, type Reply, type Router, type SandboxRequest } from '../http';
import { handleSearch, REFERENCE_POINTS, type ProviderPoint, type ProviderSettings } from './reference-provider';

/**
 * Custom pickup point providers in the sandbox: `POST /pickup-providers/{name}` is the reference provider (one per
 * name, so parallel tests never share settings), and scripted faults turn it into the bad provider of the tests:
 * slow, failing, malformed, too long, unsorted. Every request it receives is recorded with its headers.
 */
export const PROVIDER_FAULT_TYPES = [
  'slow',
  'server_error',
  'bad_request',
  'drop',
  'not_json',
  'wrong_shape',
  'oversized',
  'malformed_items',
  'many_items',
  'unsorted',
] as const;

const faultSchema = z
  .object({
    type: z.enum(PROVIDER_FAULT_TYPES),
    times: z.number().int().min(1).max(1000).default(1),
    delay_ms: z.number().int().min(0).max(120_000).default(1_000),
  })
  .strict();
type ProviderFault = z.infer<typeof faultSchema>;

const pointSchema = z
  .object({
    id: z.string(),
    latitude: z.number(),
    longitude: z.number(),
    name: z.string(),
    place: z.string().optional(),
    street: z.string(),
    city: z.string(),
    zip: z.string(),
    country: z.string(),
    pin: z.string().optional(),
    openingHours: z.record(z.string(), z.string()).optional(),
  })
  .strict();

const settingsSchema = z
  .object({
    required_headers: z.record(z.string(), z.string()).optional(),
    points: z.array(pointSchema).max(200).optional(),
  })
  .strict();

/** What the sandbox's reference provider wants unless a test configures otherwise. */
export const SANDBOX_PROVIDER_KEY = 'sandbox-provider-key';

interface SearchBody {
  latitude: number;
  longitude: number;
  countryCode: string;
}

interface ProviderState {
  settings: ProviderSettings;
  faults: ProviderFault[];
  requests: Array<{ headers: IncomingHttpHeaders; body: unknown; received_at: string }>;
}

const near = (origin: { latitude: number; longitude: number }, i: number, country: string): ProviderPoint => ({
  id: `gen-${i}`,
  // About 100 m apart, going north: point i is i * 100 m away.
  latitude: Math.round((origin.latitude + i * 0.0009) * 1e6) / 1e6,
  longitude: origin.longitude,
  name: `Generated point ${i}`,
  street: `Testovací ${i}`,
  city: 'Praha',
  zip: '110 00',
  country,
  openingHours: { monday: '08:00 - 16:00' },
});

/** One valid point, then one item for each way an item can be invalid, then a valid one and a duplicate. */
function malformedItems(origin: { latitude: number; longitude: number }, country: string): unknown[] {
  const valid = (i: number) => near(origin, i, country);
  return [
    valid(1),
    { ...valid(2), street: undefined },
    { ...valid(3), country: 'Czechia' },
    { ...valid(4), pin: 'javascript:alert(1)' },
    { ...valid(5), openingHours: { monday: '8-17' } },
    { ...valid(6), openingHours: { funday: '08:00 - 12:00' } },
    { ...valid(7), latitude: String(valid(7).latitude) },
    { ...valid(8), id: undefined },
    valid(9),
    { ...valid(10), id: 'gen-1' },
  ].map((item) => JSON.parse(JSON.stringify(item)) as unknown);
}

function takeFault(state: ProviderState): ProviderFault | null {
  const next = state.faults[0];
  if (!next) return null;
  next.times -= 1;
  if (next.times <= 0) state.faults.shift();
  return next;
}

export function registerPickupProviderSandbox(router: Router): void {
  const providers = new Map<string, ProviderState>();
  const stateOf = (name: string): ProviderState => {
    let state = providers.get(name);
    if (!state) {
      state = {
        settings: { requiredHeaders: { 'X-Provider-Key': SANDBOX_PROVIDER_KEY }, points: REFERENCE_POINTS },
        faults: [],
        requests: [],
      };
      providers.set(name, state);
    }
    return state;
  };

  /** The reference answer; answers built by a fault still pass its caller and body checks first. */
  const answer = (request: SandboxRequest, state: ProviderState, build?: (body: SearchBody) => unknown[]): Reply => {
    const reply = handleSearch(
      { method: request.method, headers: request.headers, body: request.body },
      state.settings,
    );
    if (reply.status !== 200 || !build) return json(reply.status, reply.body);
    // handleSearch accepted the body, so it has the contract's fields.
    return json(200, { data: build(request.body as SearchBody) });
  };

  router.add('POST', '/pickup-providers/:name', async (request) => {
    const state = stateOf(request.params.name!);
    state.requests.push({ headers: request.headers, body: request.body, received_at: new Date().toISOString() });
    if (state.requests.length > 50) state.requests.shift();
    const fault = takeFault(state);
    switch (fault?.type) {
      case 'slow':
        await sleep(fault.delay_ms);
        return answer(request, state);
      case 'server_error':
        return json(500, { error: 'Scripted failure: the point database is unavailable' });
      case 'bad_request':
        return json(400, { error: 'Scripted refusal: countryCode XX is not served' });
      case 'drop':
        return { kind: 'drop', afterMs: 0 };
      case 'not_json':
        return { kind: 'raw', status: 200, contentType: 'text/html', body: '<html><body>Maintenance</body></html>' };
      case 'wrong_shape':
        return json(200, { points: [] });
      case 'oversized':
        return json(200, { data: [], padding: 'x'.repeat(1_200_000) });
      case 'malformed_items':
        return answer(request, state, (b) => malformedItems(b, b.countryCode));
      case 'many_items':
        return answer(request, state, (b) => Array.from({ length: 80 }, (_, i) => near(b, i + 1, b.countryCode)));
      case 'unsorted':
        return answer(request, state, (b) => Array.from({ length: 10 }, (_, i) => near(b, 10 - i, b.countryCode)));
      default:
        return answer(request, state);
    }
  });

  const control = '/_control/pickup-providers/:name';
  router.add('PUT', control, async (request) => {
    const parsed = settingsSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw new BadRequest('provider settings are invalid', parsed.error.issues);
    const state = stateOf(request.params.name!);
    if (parsed.data.required_headers) state.settings.requiredHeaders = parsed.data.required_headers;
    if (parsed.data.points) state.settings.points = parsed.data.points;
    return json(200, { name: request.params.name, required_headers: Object.keys(state.settings.requiredHeaders) });
  });
  router.add('POST', `${control}/faults`, async (request) => {
    const parsed = z
      .object({ faults: z.array(faultSchema).min(1).max(50) })
      .strict()
      .safeParse(request.body);
    if (!parsed.success) throw new BadRequest('faults body is invalid', parsed.error.issues);
    const state = stateOf(request.params.name!);
    state.faults.push(...parsed.data.faults);
    return json(201, { name: request.params.name, faults: state.faults });
  });
  router.add('GET', `${control}/requests`, async (request) =>
    json(200, { name: request.params.name, requests: stateOf(request.params.name!).requests }),
  );
  router.add('POST', `${control}/reset`, async (request) => {
    providers.delete(request.params.name!);
    return json(200, { name: request.params.name, reset: true });
  });
}
