// Issue 34: face-to-face rooms (#83). Alice's home makes a room with her
// Atlas; Bob (the page) joins it by its six-digit number from the
// Face-to-face screen with his Bolt. The room lists both homes with their
// people and Bots (#384); Bob's plain line goes to Alice's home, where
// Atlas answers it, and comes back here; Bob's own Bolt is not asked (#124).
// Bob leaves: the room moves to Past rooms, a line is refused with nothing
// added, and Join again reopens it with its lines (#171, #1072).
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost } = require('../harness');
const synapse = require('../synapse');

test('A face-to-face room is joined by its number, its lines travel between homes, and a left room reopens from Past rooms', async ({ page, host }) => {
  test.skip(!synapse.available() && !process.env.FLYBOT_REQUIRE_SYNAPSE, 'Synapse is not installed (scripts/test installs it)');
  test.setTimeout(180_000);
  const server = await synapse.startSynapse();
  const alice = await startHost();
  try {
    await server.register('alice', 'alice-password-1');
    await server.register('bob', 'bob-password-1');
    await alice.api.call('social-connect', { homeserver: server.url, user: 'alice', password: 'alice-password-1' });
    await host.api.call('social-connect', { homeserver: server.url, user: 'bob', password: 'bob-password-1' });
    const atlas = (await alice.api.call('create-bot', { name: 'Atlas' })).bot;
    await host.api.call('create-bot', { name: 'Bolt' });
    const made = await alice.api.call('face-room-create', { bots: [atlas.id], lead: atlas.id });
    const code = made.room.face.code;

    await open(page, host, '#/');
    const side = page.getByRole('navigation', { name: 'FlyBot' });
    await side.getByRole('link', { name: 'Face-to-face' }).click();
    const join = page.getByRole('form', { name: 'Join a face-to-face room' });
    await join.getByRole('textbox', { name: 'Room number' }).fill(code);
    await join.getByRole('checkbox', { name: 'Bolt' }).check();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: test.info().outputPath('face-rooms-1280.png') });
    await join.getByRole('button', { name: 'Join room' }).click();

    const panel = page.getByRole('region', { name: 'Face-to-face room' });
    await expect(panel.locator('.w-face-code strong')).toHaveText(code);
    const homes = panel.getByRole('list', { name: 'Homes in this room' });
    await expect(homes.getByText('Atlas (Owner)')).toBeVisible({ timeout: 60_000 });
    await expect(homes.getByText('Bolt (Owner)')).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: `Face-to-face room No. ${code}` })).toBeVisible();
    const link = side.getByRole('link', { name: /^Face-to-face/ }).and(side.locator(`a[href^="#/room/"]`));
    await expect(link.locator('.badge.face')).toBeVisible();

    const box = page.getByRole('main').getByRole('textbox', { name: 'Message' });
    await box.fill('who can check the launch list?');
    await box.press('Enter');
    const log = page.getByRole('log', { name: 'Room lines' });
    const atlasLines = log.locator('.w-line-chat').filter({ has: page.locator('.w-line-author', { hasText: 'Atlas (Owner)' }) });
    await expect(atlasLines.first()).toContainText('launch list', { timeout: 60_000 });
    await expect(atlasLines.first()).not.toContainText('untrusted-message');
    const mine = log.locator('.w-line-chat').filter({ has: page.locator('.w-line-author', { hasText: /^Owner$/ }) });
    await expect(mine).toHaveCount(1);
    await expect(log.locator('.w-line-chat').filter({ has: page.locator('.w-line-author', { hasText: /^Bolt$/ }) })).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath('face-room-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: test.info().outputPath('face-room-390.png'), fullPage: true });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });

    await panel.getByRole('button', { name: 'Leave room' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'you left (Past rooms)' })).toBeVisible();
    const before = await log.locator('.w-line').count();
    await box.fill('still here?');
    await box.press('Enter');
    await expect(page.getByRole('alert').filter({ hasText: 'join it again from Past rooms' })).toBeVisible();
    await expect(log.locator('.w-line')).toHaveCount(before);

    await side.getByRole('link', { name: 'Face-to-face' }).first().click();
    const past = page.getByRole('region', { name: 'Past rooms' });
    await expect(past.getByRole('link', { name: made.room.name.replace(/ · .*/, '') , exact: false })).toBeVisible();
    await past.getByRole('button', { name: /^Join again/ }).click();
    await expect(page.getByRole('region', { name: 'Face-to-face room' }).getByRole('button', { name: 'Leave room' })).toBeVisible();
    await expect(page.getByRole('log', { name: 'Room lines' }).locator('.w-line-chat')).not.toHaveCount(0);
  } finally {
    await alice.stop();
    server.stop();
  }
});
