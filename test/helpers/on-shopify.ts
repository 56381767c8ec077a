// The jest project `integration-shopify`: test stores (test/helpers/stores.ts) are connected to the fake Shopify.
process.env.TEST_STORE_PLATFORM = 'shopify';
