// Issue 12, "Tests in a real browser": "a fresh host opens on the page".
'use strict';

const { test, expect, open } = require('../fixtures');

test('a fresh host opens on the page', async ({ page, host }) => {
  await open(page, host);
  await expect(page).toHaveTitle(/FlyBot/);
  const nav = page.getByRole('navigation').first();
  // The first request on a fresh home makes the first Main Bot, "Chief".
  await expect(nav.getByRole('link', { name: /Chief/ })).toBeVisible();
  await expect(page.getByRole('main')).toBeVisible();
  // The offline-mock state is said plainly, with how to configure a model.
  await expect(page.getByText(/mock/i).first()).toBeVisible();
  // Issue 31: the way there is Settings → Models, not a file and a restart.
  await expect(page.getByRole('link', { name: 'Settings → Models' }).first()).toBeVisible();
});
