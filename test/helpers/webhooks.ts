import { control, eventually, sandboxUrl } from './sandbox';

/** A receiver of its own in the sandbox (`/webhook-receivers/{name}`); names keep parallel tests apart. */
export const receiverUrl = (name: string) => `${sandboxUrl()}/webhook-receivers/${encodeURIComponent(name)}`;

export interface ReceivedDelivery {
  received_at: string;
  headers: Record<string, string>;
  body: string;
  answered: number | 'timeout';
}

export async function receivedBy(name: string): Promise<ReceivedDelivery[]> {
  const res = await control('GET', `/_control/webhook-receivers/${encodeURIComponent(name)}`);
  if (res.status !== 200) throw new Error(`sandbox receiver ${name}: ${JSON.stringify(res.body)}`);
  return res.body.deliveries;
}

/** Waits until the receiver got at least `count` deliveries (a delivery log entry is awaited the same way). */
export function untilReceived(name: string, count: number): Promise<ReceivedDelivery[]> {
  return eventually(
    async () => {
      const got = await receivedBy(name);
      return got.length >= count ? got : null;
    },
    300,
    100,
  );
}

export async function failNext(
  name: string,
  fault: { fail_next: number; status?: number | 'timeout'; hold_ms?: number },
): Promise<void> {
  const res = await control('POST', `/_control/webhook-receivers/${encodeURIComponent(name)}/faults`, fault);
  if (res.status !== 201) throw new Error(`scripting the receiver failed: ${JSON.stringify(res.body)}`);
}

/**
 * The loopback origin global setup put in the worker's `LOCAL_OUTBOUND_ORIGINS` (decision 0609): a test's own receiver
 * listens there. One test file uses it (test/integration/local-outbound-urls.test.ts).
 */
export function localReceiverOrigin(): string {
  const origin = process.env.TEST_LOCAL_RECEIVER_ORIGIN;
  if (!origin) throw new Error('TEST_LOCAL_RECEIVER_ORIGIN is not set: run integration tests through jest');
  return origin;
}
