import { createServer } from 'node:http';
import { registerCarrierA } from './carriers/sandbox/carrier-a';
import { registerCarrierB, registerCarrierBControl } from './carriers/sandbox/carrier-b';
import { registerCarrierC } from './carriers/sandbox/carrier-c';
import { registerCarrierD } from './carriers/sandbox/carrier-d';
import { registerCarrierControl } from './carriers/sandbox/control';
import { registerFakePacketa } from './carriers/packeta/fake/routes';
import type { SimulatorContext } from './carriers/sandbox/engine';
import { registerLegacyBatchFiles, registerOtherCarriers } from './carriers/sandbox/other-carriers';
import { CarrierSandboxState } from './carriers/sandbox/state';
import { registerPacketaFeedSandbox } from './carriers/packeta/feed/fake-feed';
import { registerPlatformSandbox } from './platform/sandbox/routes';
import { PlatformSandboxState } from './platform/sandbox/state';
import { registerShopifyFake } from './platform/shopify-fake/routes';
import { loadSandboxConfig } from './config/sandbox';
import { createLogger } from './logger';
import { json, requestListener, Router } from './sandbox/http';
import { registerPickupProviderSandbox } from './sandbox/pickup-provider/sandbox-routes';
import { registerWebhookReceiverSandbox } from './sandbox/webhook-receiver';

/** Builds the router of the whole sandbox: store platform, carriers, their control API. */
export function createSandboxRouter(onError: (error: unknown) => void): Router {
  const router = new Router();
  const ctx: SimulatorContext = { state: new CarrierSandboxState(), onError };
  router.add('GET', '/_control/health', async () => json(200, { ok: true }));
  registerCarrierA(router, ctx);
  registerCarrierB(router, ctx);
  registerCarrierBControl(router, ctx);
  registerCarrierC(router, ctx);
  registerCarrierD(router, ctx);
  registerOtherCarriers(router, ctx);
  registerLegacyBatchFiles(router, ctx);
  registerCarrierControl(router, ctx);
  // Carrier A's second implementation: Packeta's own API, for accounts whose endpoint is `packeta`.
  registerFakePacketa(router);
  registerPacketaFeedSandbox(router);
  // The fake Shopify serves the same stores as the sandbox platform: tests seed orders one way for both.
  const platformState = new PlatformSandboxState();
  registerPlatformSandbox(router, platformState);
  registerShopifyFake(router, platformState);
  registerPickupProviderSandbox(router);
  registerWebhookReceiverSandbox(router);
  return router;
}

const SANDBOX_KEEP_ALIVE_TIMEOUT_MS = 65_000;

function main(): void {
  const config = loadSandboxConfig();
  const logger = createLogger(config.logLevel, 'shipping-label-sandbox', config.log);
  const onError = (error: unknown) => logger.error({ err: error }, 'sandbox handler failed');
  const server = createServer(requestListener(createSandboxRouter(onError), onError));
  // Its clients (the API, the worker, the tests) keep pooled connections to it. With Node's 5 s an idle connection was
  // closed just as a client starved of CPU for a second (a loaded machine) sent on it: `fetch failed`, `other side
  // closed`. As the API's own server (src/http/connections.ts), it keeps them longer than its clients do.
  server.keepAliveTimeout = SANDBOX_KEEP_ALIVE_TIMEOUT_MS;
  server.listen(config.port, config.host, () => {
    logger.info({ port: config.port }, 'sandbox listening');
    // The test setup and `npm run dev` spawn us with an IPC channel and wait for this.
    process.send?.({ type: 'ready' });
  });
  const shutdown = () => {
    server.close(() => process.exit(0));
    // Held (timeout-simulating) connections would keep close() waiting.
    server.closeAllConnections();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main();
