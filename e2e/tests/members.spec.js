// Issue 12, "Tests in a real browser": "two members signed in on two pages,
// each seeing only their own Bots, and a write from one appearing live on
// the other where it is shared". Ada is the host's owner and signs in with
// her link; Ben's invitation comes from auth-invite and his page signs in
// on its form (an HttpOnly session cookie per browser context).
'use strict';

const { test, expect } = require('../fixtures');

async function signIn(page, url, code, name) {
  await page.goto(url);
  await page.getByLabel('Invitation code').fill(code);
  await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('navigation').first()).toBeVisible();
}

test('two members on two pages: each sees only their own Bots, a shared write shows live', async ({ host, browser, pageProblems }) => {
  // The owner's team before anyone else joins: the Chief and a Scout.
  await host.api.state();
  const scout = await host.api.createBot('Scout');
  // This test's own calls as Ada go with her owner token.
  const ada = host.api;
  const forBen = await ada.invite('Ben');

  const adaContext = await browser.newContext();
  const benContext = await browser.newContext();
  const adaPage = await adaContext.newPage();
  const benPage = await benContext.newPage();
  pageProblems.watch(adaPage);
  pageProblems.watch(benPage);
  await adaPage.goto(host.signInUrl);
  await expect(adaPage.getByRole('navigation').first()).toBeVisible();
  await signIn(benPage, host.url, forBen, 'Ben');
  const adaNav = adaPage.getByRole('navigation').first();
  const benNav = benPage.getByRole('navigation').first();

  // Ben makes his own Bot on his page.
  await benNav.getByRole('link', { name: 'New Bot' }).click();
  await benPage.getByLabel('Name', { exact: true }).fill('Bishop');
  await benPage.getByRole('button', { name: 'Create Bot' }).click();
  await expect(benNav.getByRole('link', { name: 'Bishop' })).toBeVisible();

  // Each sees only their own Bots.
  await expect(adaNav.getByRole('link', { name: 'Scout' })).toBeVisible();
  await expect(adaNav.getByRole('link', { name: 'Chief' })).toBeVisible();
  await expect(benNav.getByRole('link', { name: 'Scout' })).toHaveCount(0);
  await expect(benNav.getByRole('link', { name: 'Chief' })).toHaveCount(0);
  await expect(adaNav.getByRole('link', { name: 'Bishop' })).toHaveCount(0);

  // Ada shares the Scout with Ben: it appears on Ben's page without a reload.
  const ben = (await ada.state()).members.find((m) => m.name === 'Ben');
  await ada.call('set-grants', { botId: scout.id, grants: [{ grantee: ben.id }] });
  await expect(benNav.getByRole('link', { name: /Scout/ })).toBeVisible();

  // A write on Ada's page (renaming the shared Bot) shows live on Ben's.
  await adaNav.getByRole('link', { name: 'Scout' }).click();
  await adaPage.getByRole('main').getByRole('link', { name: 'Edit Bot' }).or(
    adaPage.getByRole('main').getByRole('button', { name: 'Edit Bot' }),
  ).click();
  await adaPage.getByLabel('Name', { exact: true }).fill('Scout Prime');
  await adaPage.getByRole('button', { name: 'Save' }).click();
  await expect(adaNav.getByRole('link', { name: 'Scout Prime' })).toBeVisible();
  await expect(benNav.getByRole('link', { name: /Scout Prime/ })).toBeVisible();
  await expect(benNav.getByRole('link', { name: 'Bishop' })).toBeVisible();

  await adaContext.close();
  await benContext.close();
});
