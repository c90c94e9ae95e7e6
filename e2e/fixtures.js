// The tests' fixtures: `host` is a fresh `flybot serve` (temporary home,
// free port, offline mock) per test, stopped after it; every page is
// watched for uncaught errors and Content-Security-Policy refusals, which
// fail the test (a page that throws is broken even when it looks right).
'use strict';

const base = require('@playwright/test');
const { startHost } = require('./harness');

const test = base.test.extend({
  host: async ({}, use) => {
    const host = await startHost();
    await use(host);
    await host.stop();
  },

  pageProblems: [
    async ({ context }, use) => {
      const problems = [];
      const watch = (page) => {
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        page.on('console', (message) => {
          if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) {
            problems.push(`CSP: ${message.text()}`);
          }
        });
      };
      context.pages().forEach(watch);
      context.on('page', watch);
      // A test that opens its own browser contexts watches their pages too.
      problems.watch = watch;
      await use(problems);
      base.expect([...problems], 'the page threw or broke its CSP').toEqual([]);
    },
    { auto: true },
  ],
});

/**
 * Opens the page at `hash` (e.g. '#/board') and waits for the sidebar. The
 * first visit of a browser context goes through the owner's sign-in link.
 */
async function open(page, host, hash = '') {
  const signedIn = (await page.context().cookies(host.url)).some((c) => c.name === 'flybot_session');
  await page.goto(signedIn ? `${host.url}/${hash}` : `${host.signInUrl}${hash}`);
  await base.expect(page.getByRole('navigation').first()).toBeVisible();
}

/**
 * Holds the page's next request to the endpoint `name` on its way to the host.
 * `held` resolves once the page has sent it; `release()` lets it go on.
 */
function holdNext(page, name) {
  let release;
  const held = new Promise((sent) => {
    page.route(
      `**/api/bot/${name}`,
      async (route) => {
        await new Promise((go) => {
          release = go;
          sent();
        });
        await route.continue();
      },
      { times: 1 },
    );
  });
  return { held, release: () => release() };
}

module.exports = { test, expect: base.expect, open, holdNext };
