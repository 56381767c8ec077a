import type { PlatformConnection, ShopifyConnection } from '../db/platform-sessions-repository';
import type {
  Fulfillment,
  FulfillmentOrderHoldResult,
  FulfillRequest,
  PlatformFulfillmentOrder,
  PlatformOrder,
  PlatformOrderWithFulfillment,
  PlatformPickupPoint,
  StorePlatformPort,
} from './port';
import { ShopifyPlatform } from './shopify/shopify-platform';
import type { ShopifyGraphqlClient } from './shopify/graphql-client';

/**
 * A Shopify session's tokens for each call (decision 0710; `ShopifyTokens` in src/shopify-app/): the token to use now
 * (refreshed when due), and what to try after a 401.
 */
export interface SessionTokens {
  tokenFor(connection: ShopifyConnection, shop: string, what: string): Promise<string | null>;
  afterUnauthorized(
    connection: ShopifyConnection,
    shop: string,
    what: string,
    used: string | null,
    afterRefresh: boolean,
  ): Promise<string>;
}

/**
 * The store-platform port for every store: each call goes to the platform the store is on (the sandbox platform, or
 * Shopify with the store's session), looked up on every call so a connect, a rotation or a disconnect by the operator
 * takes effect at once in every process (docs/decisions/0702-store-platform-sessions.md).
 */
export class StorePlatforms implements StorePlatformPort {
  constructor(
    private readonly sandbox: StorePlatformPort,
    private readonly shopifyClient: ShopifyGraphqlClient,
    private readonly connectionOf: (shop: string) => Promise<PlatformConnection>,
    /** Refreshes expiring tokens (decision 0710); without it every token is used as stored. */
    private readonly tokens?: SessionTokens,
  ) {}

  /**
   * One lookup per port call; the Shopify adapter of this call holds the session it found: its token, refreshed first
   * when due, and once more after a 401.
   */
  private async platformOf(shop: string, what = 'store_platform'): Promise<StorePlatformPort> {
    const connection = await this.connectionOf(shop);
    if (connection.platform === 'sandbox') return this.sandbox;
    const tokens = this.tokens;
    if (!tokens) return new ShopifyPlatform(this.shopifyClient, () => Promise.resolve(connection.accessToken));
    return new ShopifyPlatform(
      this.shopifyClient,
      () => tokens.tokenFor(connection, shop, what),
      (s, call, used, afterRefresh) => tokens.afterUnauthorized(connection, s, call, used, afterRefresh),
    );
  }

  async getOrder(shop: string, orderId: string): Promise<PlatformOrder | null> {
    return (await this.platformOf(shop)).getOrder(shop, orderId);
  }

  async findOrdersByName(shop: string, name: string): Promise<PlatformOrder[]> {
    return (await this.platformOf(shop)).findOrdersByName(shop, name);
  }

  async listFulfillmentOrders(shop: string, orderId: string): Promise<PlatformFulfillmentOrder[]> {
    return (await this.platformOf(shop)).listFulfillmentOrders(shop, orderId);
  }

  async getOrderWithFulfillmentOrders(shop: string, orderId: string): Promise<PlatformOrderWithFulfillment | null> {
    return (await this.platformOf(shop)).getOrderWithFulfillmentOrders(shop, orderId);
  }

  async fulfill(shop: string, request: FulfillRequest): Promise<Fulfillment> {
    return (await this.platformOf(shop)).fulfill(shop, request);
  }

  async addOrderTags(shop: string, orderId: string, tags: string[]): Promise<string[]> {
    return (await this.platformOf(shop)).addOrderTags(shop, orderId, tags);
  }

  async setOrderPickupPoint(shop: string, orderId: string, point: PlatformPickupPoint): Promise<PlatformOrder> {
    return (await this.platformOf(shop)).setOrderPickupPoint(shop, orderId, point);
  }

  async holdFulfillmentOrders(
    shop: string,
    ids: readonly string[],
    hold: { reason: string; handle: string },
  ): Promise<FulfillmentOrderHoldResult[]> {
    return (await this.platformOf(shop)).holdFulfillmentOrders(shop, ids, hold);
  }

  async releaseFulfillmentOrderHolds(
    shop: string,
    ids: readonly string[],
    handle: string,
  ): Promise<FulfillmentOrderHoldResult[]> {
    return (await this.platformOf(shop)).releaseFulfillmentOrderHolds(shop, ids, handle);
  }
}
