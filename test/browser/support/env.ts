/** How global-setup hands the shared browser to the test files. */

export const BROWSER_ENV = {
  wsEndpoint: 'WEBHOOKS_TEST_BROWSER_WS',
  puppeteerBundle: 'WEBHOOKS_TEST_PUPPETEER_CJS',
} as const;

/** Where global-setup leaves the launched browser for global-teardown (same Jest process). */
export const BROWSER_KEY = '__WEBHOOKS_BROWSER__';
