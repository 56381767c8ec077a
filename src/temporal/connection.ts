import { Client, Connection, type ClientInterceptors } from '@temporalio/client';
import type { TemporalSettings } from '../config/temporal';

type Endpoint = Pick<TemporalSettings, 'address' | 'tls' | 'apiKey'>;

/**
 * What both connection kinds take (the client's `Connection` and the worker's `NativeConnection`): TLS with a CA,
 * a client certificate for mTLS and a server name, and Temporal Cloud's API key. No TLS at all for a local server.
 */
export function connectionOptions({ address, tls, apiKey }: Endpoint) {
  return { address, tls: tls ?? false, ...(apiKey ? { apiKey } : {}) };
}

/** Connects with retries: a server that just opened its port may need a moment to serve gRPC. */
export async function connectTemporal(
  settings: Endpoint & Pick<TemporalSettings, 'namespace'>,
  timeoutMs = 30_000,
  /** Tracing's client interceptors (src/tracing/temporal.ts), only when tracing is on. */
  interceptors?: ClientInterceptors,
): Promise<Client> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const connection = await Connection.connect({ ...connectionOptions(settings), connectTimeout: 5_000 });
      await connection.workflowService.getSystemInfo({});
      return new Client({
        connection,
        namespace: settings.namespace,
        ...(interceptors ? { interceptors } : {}),
      });
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  throw new Error(`Temporal at ${settings.address} is not reachable: ${(lastError as Error)?.message ?? 'timeout'}`);
}
