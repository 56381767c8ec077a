import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { BadRequest, json, type Router } from './http';

/**
 * A webhook receiver in the sandbox (docs/sandbox.md, "Webhook receivers"): `POST /webhook-receivers/{name}` records
 * each delivery (headers, the exact body, when) under its name, so parallel tests and merchants trying webhooks out
 * never share one; it can be scripted to fail the next N deliveries with a status, or to hold them past the sender's
 * time box. The sandbox origin is the one non-HTTPS, loopback endpoint the service accepts outside production.
 */

const faultSchema = z
  .object({
    /** How many of the next deliveries fail. */
    fail_next: z.number().int().min(1).max(1000),
    /** The status they answer, or `timeout`: held without an answer for `hold_ms`. */
    status: z.union([z.number().int().min(300).max(599), z.literal('timeout')]).default(503),
    hold_ms: z.number().int().min(0).max(120_000).default(15_000),
  })
  .strict();

interface ReceivedDelivery {
  received_at: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** What the receiver answered: the status, or `timeout`. */
  answered: number | 'timeout';
}

interface ReceiverState {
  failuresLeft: number;
  failWith: number | 'timeout';
  holdMs: number;
  deliveries: ReceivedDelivery[];
}

const MAX_KEPT = 200;

export function registerWebhookReceiverSandbox(router: Router): void {
  const receivers = new Map<string, ReceiverState>();
  const stateOf = (name: string): ReceiverState => {
    let state = receivers.get(name);
    if (!state) {
      state = { failuresLeft: 0, failWith: 503, holdMs: 0, deliveries: [] };
      receivers.set(name, state);
    }
    return state;
  };

  router.add('POST', '/webhook-receivers/:name', async (request) => {
    const state = stateOf(request.params.name!);
    const failing = state.failuresLeft > 0;
    if (failing) state.failuresLeft -= 1;
    const answered = failing ? state.failWith : 200;
    state.deliveries.push({
      received_at: new Date().toISOString(),
      headers: request.headers,
      body: request.rawBody,
      answered,
    });
    if (state.deliveries.length > MAX_KEPT) state.deliveries.shift();
    if (answered === 'timeout') return { kind: 'drop', afterMs: state.holdMs };
    return failing
      ? json(answered, { error: 'scripted failure of the sandbox webhook receiver' })
      : json(200, { received: true });
  });

  const control = '/_control/webhook-receivers/:name';
  router.add('GET', control, async (request) => {
    const state = stateOf(request.params.name!);
    return json(200, { name: request.params.name, failures_left: state.failuresLeft, deliveries: state.deliveries });
  });
  router.add('POST', `${control}/faults`, async (request) => {
    const parsed = faultSchema.safeParse(request.body);
    if (!parsed.success) throw new BadRequest('receiver fault is invalid', parsed.error.issues);
    const state = stateOf(request.params.name!);
    state.failuresLeft = parsed.data.fail_next;
    state.failWith = parsed.data.status;
    state.holdMs = parsed.data.hold_ms;
    return json(201, { name: request.params.name, failures_left: state.failuresLeft });
  });
  router.add('POST', `${control}/reset`, async (request) => {
    receivers.delete(request.params.name!);
    return json(200, { name: request.params.name, reset: true });
  });
}
