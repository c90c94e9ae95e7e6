// Issue 29, "Sign-in a person can use, like Jupyter's": the owner opens the
// link `flybot serve` printed, the page trades its token for a cookie and
// drops it from the address bar; without the link the page asks who is
// signing in; Settings lists the person's sign-ins and revokes one.
'use strict';

const { test, expect } = require('../fixtures');

test('the owner signs in with her link and the token leaves the address bar', async ({ page, host }) => {
  await page.goto(`${host.signInUrl}#/settings`);
  await expect(page.getByRole('navigation').first()).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  expect(page.url()).not.toContain('token');
  expect(await page.evaluate(() => location.search)).toBe('');
  // The session is an HttpOnly cookie the page's scripts cannot read.
  expect(await page.evaluate(() => document.cookie)).not.toContain('flybot_session');
  await page.screenshot({ path: test.info().outputPath('signed-in.png') });
});

test('without the link the page asks who is signing in, and a wrong link says so', async ({ page, host }) => {
  await page.goto(`${host.url}/`);
  await expect(page.getByRole('heading', { name: 'Sign in to FlyBot' })).toBeVisible();
  await expect(page.getByText(/flybot token/)).toBeVisible();
  await expect(page.getByRole('navigation')).toHaveCount(0);
  await page.goto(`${host.url}/?token=not-this-hosts-token`);
  await expect(page.getByRole('alert')).toContainText("not this host's");
  expect(page.url()).not.toContain('not-this-hosts-token');
  await page.screenshot({ path: test.info().outputPath('sign-in.png') });
});

test('Settings lists this browser and another sign-in, and revokes the other', async ({ page, host, browser, pageProblems }) => {
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  pageProblems.watch(otherPage);
  await otherPage.goto(host.signInUrl);
  await expect(otherPage.getByRole('navigation').first()).toBeVisible();

  await page.goto(`${host.signInUrl}#/settings`);
  const signIns = page.getByRole('region', { name: 'Sign-ins' });
  await expect(signIns.getByText('This browser')).toBeVisible();
  await expect(signIns.getByText('Another sign-in')).toBeVisible();
  await signIns.getByRole('button', { name: /Revoke/ }).nth(1).click();
  await expect(signIns.getByText('Another sign-in')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('sign-ins.png'), fullPage: true });

  // The other browser is signed out: a reload asks it to sign in again.
  await otherPage.reload();
  await expect(otherPage.getByRole('heading', { name: 'Sign in to FlyBot' })).toBeVisible();
  await other.close();
});
