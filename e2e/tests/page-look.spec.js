// Issue 31, the page's look: dark mode following prefers-color-scheme with
// a pick in Settings kept in the browser, a favicon, the offline notice at
// phone width, no rule numbers or endpoint names in what a person reads,
// and "Remove" offered only where the viewer may remove.
'use strict';

const { test, expect, open } = require('../fixtures');

const theme = (page) => page.evaluate(() => document.documentElement.dataset.theme);
const background = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test('dark mode follows the system; Settings picks one and the browser keeps it', async ({ page, host }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await open(page, host, '#/settings');
  expect(await theme(page)).toBe('dark');
  expect(await background(page)).toBe('rgb(21, 23, 27)');
  const pick = page.getByLabel('Theme');
  await expect(pick).toHaveValue('system');
  await page.screenshot({ path: test.info().outputPath('settings-dark-1280.png'), fullPage: true });

  await pick.selectOption('light');
  expect(await theme(page)).toBe('light');
  expect(await background(page)).toBe('rgb(255, 255, 255)');
  await page.reload();
  await expect(page.getByLabel('Theme')).toHaveValue('light');
  expect(await theme(page)).toBe('light');

  await page.getByLabel('Theme').selectOption('system');
  expect(await theme(page)).toBe('dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect.poll(() => theme(page)).toBe('light');
  await page.getByLabel('Theme').selectOption('dark');
  await page.reload();
  expect(await theme(page)).toBe('dark');
});

test('the chat and a room in dark, at 1280 and 390 px', async ({ page, host }) => {
  await host.api.state();
  const ada = await host.api.createBot('Ada');
  const room = await host.api.createRoom('Studio', [ada.id]);
  await host.api.send({ botId: ada.id }, 'hello');
  await page.emulateMedia({ colorScheme: 'dark' });
  await open(page, host, `#/bot/${ada.id}`);
  await expect(page.getByRole('main').getByText('(mock model) I received: hello')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('chat-dark-1280.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('chat-dark-390.png') });
  await page.goto(`${host.url}/#/room/${room.id}`);
  await expect(page.getByRole('heading', { name: 'Studio' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('room-dark-390.png') });
  await page.getByRole('button', { name: 'Members' }).click();
  await expect(page.getByRole('button', { name: 'Delete room' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('room-side-dark-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await host.api.createTask(ada.id, 'Write a haiku', { roomId: room.id });
  await page.goto(`${host.url}/#/board`);
  await expect(page.getByRole('button', { name: 'Write a haiku' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('board-dark-1280.png') });
  await page.goto(`${host.url}/#/workflow/repo-dev`);
  await expect(page.getByRole('group', { name: /^Flowchart of/ })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('workflow-dark-1280.png') });
});

test('the favicon is an SVG the page links and the host serves', async ({ page, host }) => {
  await open(page, host);
  const href = await page.locator('link[rel=icon]').getAttribute('href');
  expect(href).toBe('/assets/favicon.svg');
  const answer = await page.request.get(`${host.url}${href}`);
  expect(answer.status()).toBe(200);
  expect(answer.headers()['content-type']).toContain('image/svg+xml');
  expect(await answer.text()).toContain('<svg');
});

test('the offline notice shows at phone width', async ({ page, host }) => {
  await open(page, host);
  await page.setViewportSize({ width: 390, height: 844 });
  const main = page.locator('.phone-notice');
  await expect(main.getByText('Offline model.')).toBeVisible();
  await expect(main).toContainText('built-in mock');
  await page.screenshot({ path: test.info().outputPath('offline-390.png') });
  // At desktop width the sidebar says it, once.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(main).toBeHidden();
  await expect(page.getByRole('navigation').first().getByText('Offline model.')).toBeVisible();
});

test('no rule numbers or endpoint names in what a person reads', async ({ page, host }) => {
  await host.api.state();
  const ada = await host.api.createBot('Ada');
  const room = await host.api.createRoom('Studio', [ada.id]);
  for (const hash of ['#/settings', `#/room/${room.id}`, '#/rooms/new', '#/bots/new', '#/board', '#/inbox', '#/schedules']) {
    await open(page, host, hash);
    await expect(page.getByRole('main').getByRole('heading').first()).toBeVisible();
    const text = await page.evaluate(() => document.body.innerText);
    expect(text, hash).not.toMatch(/\(#\d+\)/);
    expect(text, hash).not.toMatch(/\b(connector-connect|secret-set|set-prefs|update-room|create-room)\b/);
  }
});

test('Remove is offered beside a member only to the host owner, never beside the owner', async ({ host, browser, pageProblems }) => {
  await host.api.state();
  const code = await host.api.invite('Ben');
  const adaPage = await (await browser.newContext()).newPage();
  const benPage = await (await browser.newContext()).newPage();
  pageProblems.watch(adaPage);
  pageProblems.watch(benPage);
  await adaPage.goto(`${host.signInUrl}#/settings`);
  await benPage.goto(host.url);
  await benPage.getByLabel('Invitation code').fill(code);
  await benPage.getByLabel('Your name').fill('Ben');
  await benPage.getByRole('button', { name: 'Sign in' }).click();
  await expect(benPage.getByRole('navigation').first()).toBeVisible();
  await benPage.goto(`${host.url}/#/settings`);

  const benMembers = benPage.getByRole('region', { name: 'Members and invitations' });
  await expect(benMembers.getByText('Ben', { exact: true })).toBeVisible();
  await expect(benMembers.getByRole('button', { name: /^Remove/ })).toHaveCount(0);

  const adaMembers = adaPage.getByRole('region', { name: 'Members and invitations' });
  await expect(adaMembers.getByRole('button', { name: 'Remove Ben' })).toBeVisible();
  await expect(adaMembers.getByRole('button', { name: /^Remove/ })).toHaveCount(1);
  await expect(adaMembers).toContainText('host owner');
});
