// The page draws only the newest address: a screen whose code is still loading when the person moves on
// never shows, so nothing typed can land in a screen that is about to go (a chat's box emptied under the person).
'use strict';

const { test, expect, open } = require('../fixtures');

test('a screen still loading when the address moves on never draws', async ({ page, host }) => {
  const bot = await host.api.createBot('Slow');
  await open(page, host, '#/board');
  await expect(page.getByRole('heading', { name: 'Board', exact: true })).toBeVisible();
  // Notes any chat box the page ever draws.
  await page.evaluate(() => {
    window.sawChat = false;
    new MutationObserver(() => {
      if (document.getElementById('chat-message')) window.sawChat = true;
    }).observe(document.body, { childList: true, subtree: true });
  });
  // The chat screen's code is held on its way, as on a slow link.
  let release;
  const held = new Promise((sent) => {
    page.route('**/assets/js/screens/chat.js', async (route) => {
      sent();
      await new Promise((go) => (release = go));
      await route.continue();
    });
  });
  await page.evaluate((id) => (location.hash = `#/bot/${id}`), bot.id);
  await held;
  await page.evaluate(() => (location.hash = '#/usage'));
  release();
  await expect(page.getByRole('heading', { name: 'Usage', exact: true })).toBeVisible();
  // The chat's code loaded before the newer address drew, and its draw was passed over.
  expect(await page.evaluate(() => window.sawChat)).toBe(false);
  // Loaded now, the chat draws when it is the newest address (and the watch above sees it).
  await page.evaluate((id) => (location.hash = `#/bot/${id}`), bot.id);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  expect(await page.evaluate(() => window.sawChat)).toBe(true);
});
