// Issue 34, #476: the home that made a face-to-face room (the page, Alice)
// changes its lead to Bob's Bolt and closes it. The subtitle counts the
// Bots of both homes; after the close, nobody writes there and the lines
// stay.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost } = require('../harness');
const synapse = require('../synapse');

test('The maker of a face-to-face room picks its lead from any home and closes it for everyone', async ({ page, host }) => {
  test.skip(!synapse.available() && !process.env.FLYBOT_REQUIRE_SYNAPSE, 'Synapse is not installed (scripts/test installs it)');
  test.setTimeout(180_000);
  const server = await synapse.startSynapse();
  const bob = await startHost();
  try {
    await server.register('alice', 'alice-password-1');
    await server.register('bob', 'bob-password-1');
    await host.api.call('social-connect', { homeserver: server.url, user: 'alice', password: 'alice-password-1' });
    await bob.api.call('social-connect', { homeserver: server.url, user: 'bob', password: 'bob-password-1' });
    const atlas = (await host.api.call('create-bot', { name: 'Atlas' })).bot;
    const bolt = (await bob.api.call('create-bot', { name: 'Bolt' })).bot;
    const made = await host.api.call('face-room-create', { bots: [atlas.id], lead: atlas.id });
    const joined = await bob.api.call('face-room-join', { code: made.room.face.code, bots: [bolt.id] });

    await open(page, host, `#/room/${made.room.id}`);
    const panel = page.getByRole('region', { name: 'Face-to-face room' });
    const homes = panel.getByRole('list', { name: 'Homes in this room' });
    await expect(homes.getByText('Bolt (Owner)')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByRole('status').filter({ hasText: '2 members' })).toBeVisible();
    const lead = panel.getByRole('combobox', { name: 'Lead of this room' });
    await expect(lead).toHaveValue(atlas.id);
    await lead.selectOption({ label: 'Bolt (Owner)' });
    await panel.getByRole('button', { name: 'Set lead' }).click();
    await expect(homes.getByText('Lead: Bolt')).toBeVisible();
    await expect.poll(async () => (await bob.api.call('state', {})).rooms.find((r) => r.id === joined.room.id).admin, { timeout: 60_000 }).toBe(bolt.id);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: test.info().outputPath('face-lead-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Members' }).click().catch(() => {});
    await page.screenshot({ path: test.info().outputPath('face-lead-390.png'), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });

    await panel.getByRole('button', { name: 'Close room' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Close it for everyone' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'closed' })).toBeVisible();
    await expect(panel.getByText('closed it; its lines stay here')).toBeVisible();
    const log = page.getByRole('log', { name: 'Room lines' });
    const before = await log.locator('.w-line').count();
    const box = page.getByRole('main').getByRole('textbox', { name: 'Message' });
    await box.fill('anyone still here?');
    await box.press('Enter');
    await expect(page.getByRole('alert').filter({ hasText: 'closed' })).toBeVisible();
    await expect(log.locator('.w-line')).toHaveCount(before);
    await expect.poll(async () => (await bob.api.call('state', {})).rooms.find((r) => r.id === joined.room.id).face.status, { timeout: 60_000 }).toBe('closed');
  } finally {
    await bob.stop();
    server.stop();
  }
});
