// Issue 31, "Rooms from the page": a room is made from the sidebar's New
// room (name, member Bots), renamed, its notice and members changed on its
// screen, and deleted after a question that says what is kept; a refusal
// shows beside the field it names.
'use strict';

const { test, expect, open } = require('../fixtures');

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

  // Rename: an empty name is refused beside the field, then a good one.
  const roomName = side.getByLabel('Room name');
  await roomName.fill(' ');
  await side.getByRole('button', { name: 'Rename' }).click();
  await expect(roomName).toHaveAccessibleDescription(/Give a name; it cannot be empty\./);
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
