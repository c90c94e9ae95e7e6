// Issue 31, "Rooms from the page": a room is made from the sidebar's New
// room (name, member Bots), renamed, its notice and members changed on its
// screen, and deleted after a question that says what is kept; a refusal
// shows beside the field it names.
'use strict';

const { test, expect, open, holdNext } = require('../fixtures');

test('a room made, renamed, changed and deleted from the page', async ({ page, host }) => {
  await host.api.state();
  await host.api.createBot('Ada');
  await host.api.createBot('Grace');
  await open(page, host);

  const nav = page.getByRole('navigation').first();
  await nav.getByRole('link', { name: 'New room' }).click();
  await expect(page.getByRole('heading', { name: 'New room' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('new-room-1280.png') });

  // Refusals beside their fields: no members, then no name.
  const name = page.getByLabel('Name', { exact: true });
  await name.fill('Studio');
  await page.getByRole('button', { name: 'Create room' }).click();
  await expect(page.getByText('A room needs at least one member Bot or participant.')).toBeVisible();
  await expect(page.getByRole('checkbox', { name: 'Ada' })).toHaveAccessibleDescription(/A room needs at least one member Bot/);
  await page.getByRole('checkbox', { name: 'Ada' }).check();
  await name.fill('');
  await page.getByRole('button', { name: 'Create room' }).click();
  await expect(name).toHaveAccessibleDescription(/Give a name; it cannot be empty\./);

  await name.fill('Studio');
  await page.getByLabel('Standing notice').fill('Keep answers short.');
  await page.getByRole('button', { name: 'Create room' }).click();
  await expect(page.getByRole('heading', { name: 'Studio', level: 1 })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Studio' })).toBeVisible();
  const side = page.getByRole('complementary', { name: 'Members and notice' });
  await expect(side.getByLabel('Standing notice')).toHaveValue('Keep answers short.');

  // Members: add Grace; the notice is changed.
  await side.getByLabel('Add a member').selectOption({ label: 'Grace' });
  await side.getByRole('button', { name: 'Add member' }).click();
  await expect(side.getByRole('button', { name: 'Remove Grace' })).toBeVisible();
  await side.getByLabel('Standing notice').fill('Answer in one line.');
  await side.getByRole('button', { name: 'Save notice' }).click();
  await expect.poll(async () => (await host.api.call('state')).rooms?.find((r) => r.name === 'Studio')?.notice ?? null).toBe('Answer in one line.');

  // A change made elsewhere redraws the panel between two keys: the caret stays where the
  // person put it. (A redraw that lost it made Playwright's fill land beside the old name.)
  await expect(side.locator('[data-busy]')).toHaveCount(0);
  const roomName = side.getByLabel('Room name');
  await roomName.click();
  await roomName.press('End');
  for (let i = 0; i < 3; i += 1) await roomName.press('ArrowLeft');
  const made = await host.api.call('state');
  const grace = made.bots.find((b) => b.name === 'Grace');
  await host.api.call('update-room', { id: made.rooms.find((r) => r.name === 'Studio').id, taskLead: grace.id });
  await expect(side.getByRole('listitem').filter({ hasText: 'Grace' }).getByText('task lead')).toBeVisible();
  await page.keyboard.type('X');
  await expect(roomName).toHaveValue('StuXdio');

  // Rename: an empty name is refused beside the field, then a good one. A change made
  // elsewhere while the answer is awaited redraws the panel only once the refusal is on
  // screen, and that redraw keeps the refusal the person has not read.
  const rename = holdNext(page, 'update-room');
  await roomName.fill(' ');
  await side.getByRole('button', { name: 'Rename' }).click();
  await rename.held;
  const before = await host.api.call('state');
  const studio = before.rooms.find((r) => r.name === 'Studio');
  const ada = before.bots.find((b) => b.name === 'Ada');
  const seen = page.waitForResponse((r) => r.url().endsWith('/api/bot/state'));
  await host.api.call('update-room', { id: studio.id, admin: ada.id });
  await seen;
  rename.release();
  await expect(side.getByText('admin', { exact: true })).toBeVisible();
  await expect(roomName).toHaveAccessibleDescription(/Give a name; it cannot be empty\./);
  await side.screenshot({ path: test.info().outputPath('room-rename-refused-1280.png') });
  await roomName.fill('Atelier');
  await side.getByRole('button', { name: 'Rename' }).click();
  await expect(page.getByRole('heading', { name: 'Atelier', level: 1 })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Atelier' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('room-side-1280.png'), fullPage: true });

  // Delete: asked first, saying what stays; Keep it changes nothing.
  await side.getByRole('button', { name: 'Delete room' }).click();
  const ask = page.getByRole('alertdialog', { name: /Delete the room Atelier\?/ });
  await expect(ask).toContainText('Its Bots stay on your team');
  await expect(ask).toContainText('its lines stay in the home folder');
  await ask.getByRole('button', { name: 'Keep it' }).click();
  await expect(ask).toBeHidden();
  await side.getByRole('button', { name: 'Delete room' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete Atelier' }).click();
  await expect(nav.getByRole('link', { name: 'Atelier' })).toHaveCount(0);
  await expect(nav.getByText('No rooms yet.')).toBeVisible();
  const state = await host.api.call('state');
  expect(state.rooms || []).toEqual([]);
  expect(state.bots.map((b) => b.name)).toEqual(expect.arrayContaining(['Ada', 'Grace']));
});

test('at phone width the New room form fits', async ({ page, host }) => {
  await host.api.state();
  await host.api.createBot('Ada');
  await open(page, host, '#/rooms/new');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('heading', { name: 'New room' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('new-room-390.png') });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
});

test("a member's room: made from a granted Bot, and another member is offered no changes", async ({ host, browser, pageProblems }) => {
  await host.api.state();
  const scout = await host.api.createBot('Scout');
  const code = await host.api.invite('Ben');
  const adaPage = await (await browser.newContext()).newPage();
  const benPage = await (await browser.newContext()).newPage();
  pageProblems.watch(adaPage);
  pageProblems.watch(benPage);
  await benPage.goto(host.url);
  await benPage.getByLabel('Invitation code').fill(code);
  await benPage.getByLabel('Your name').fill('Ben');
  await benPage.getByRole('button', { name: 'Sign in' }).click();
  await expect(benPage.getByRole('navigation').first()).toBeVisible();
  const ben = (await host.api.state()).members.find((m) => m.name === 'Ben');
  await host.api.call('set-grants', { botId: scout.id, grants: [{ grantee: ben.id }] });

  // Ben's form offers the Bot shared with him, not the owner's others.
  await benPage.goto(`${host.url}/#/rooms/new`);
  await expect(benPage.getByRole('checkbox', { name: 'Scout' })).toBeVisible();
  await expect(benPage.getByRole('checkbox', { name: 'Chief' })).toHaveCount(0);
  await benPage.getByLabel('Name', { exact: true }).fill('Lookout');
  await benPage.getByRole('checkbox', { name: 'Scout' }).check();
  await benPage.getByRole('button', { name: 'Create room' }).click();
  await expect(benPage.getByRole('heading', { name: 'Lookout', level: 1 })).toBeVisible();
  await expect(benPage.getByRole('button', { name: 'Delete room' })).toBeVisible();

  // Ada sees the room (her Bot sits in it) but is offered no change to it.
  await adaPage.goto(host.signInUrl);
  const adaNav = adaPage.getByRole('navigation').first();
  await adaNav.getByRole('link', { name: 'Lookout' }).click();
  await expect(adaPage.getByRole('heading', { name: 'Lookout', level: 1 })).toBeVisible();
  const side = adaPage.getByRole('complementary', { name: 'Members and notice' });
  await expect(side.getByText('Only the room’s owner changes its name, members and notice.')).toBeVisible();
  await expect(side.getByRole('button')).toHaveCount(0);
});
