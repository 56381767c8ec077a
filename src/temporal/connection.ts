import { Client, Connection } from '@temporalio/client';

/** Connects with retries: a dev server that just opened its port may need a moment to serve gRPC. */
export async function connectTemporal(address: string, namespace: string, timeoutMs = 30_000): Promise<Client> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 5_000 });
      await connection.workflowService.getSystemInfo({});
      return new Client({ connection, namespace });
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  throw new Error(`Temporal at ${address} is not reachable: ${(lastError as Error)?.message ?? 'timeout'}`);
}
