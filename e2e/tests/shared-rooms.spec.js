// Issue 34: a room of another home shared with this one (#825-#949). Bob's
// home (the page) publishes Bolt to Alice; Alice adds Bolt to her room
// "Plans". Bob's sidebar lists Plans at once, marked shared, and the room
// says "Shared room from <inviter>" (#848) with Alice's Atlas among the
// friends' Bots; Bob calls Atlas from his page and Atlas's answer, written
// on Alice's home, shows here.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost } = require('../harness');
const synapse = require('../synapse');

/** Asks `call` until `pick` finds something (another home's doing has no event here). */
async function until(what, call, pick) {
  for (let i = 0; i < 600; i += 1) {
    const found = pick(await call());
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never saw ${what}`);
}

test('A room shared from a friend\'s home is listed with its inviter and its lines travel both ways', async ({ page, host }) => {
  test.skip(!synapse.available() && !process.env.FLYBOT_REQUIRE_SYNAPSE, 'Synapse is not installed (scripts/test installs it)');
  test.setTimeout(180_000);
  const server = await synapse.startSynapse();
  const alice = await startHost();
  try {
    const aliceId = await server.register('alice', 'alice-password-1');
    const bobId = await server.register('bob', 'bob-password-1');
    await alice.api.call('social-connect', { homeserver: server.url, user: 'alice', password: 'alice-password-1' });
    await host.api.call('social-connect', { homeserver: server.url, user: 'bob', password: 'bob-password-1' });
    await alice.api.call('social-friend-add', { userId: bobId });
    await host.api.call('social-friend-add', { userId: aliceId });
    const bolt = (await host.api.call('create-bot', { name: 'Bolt' })).bot;
    await host.api.call('social-publish', { botId: bolt.id, userId: aliceId });
    const row = await until('Bolt on Alice\'s home', () => alice.api.call('social'), (v) => (v.remoteBots || []).find((b) => b.title === 'Bolt (Owner)' && b.shared));
    const atlas = (await alice.api.call('create-bot', { name: 'Atlas' })).bot;
    const plans = (await alice.api.call('create-room', { name: 'Plans', members: [atlas.id], admin: atlas.id })).room;
    await alice.api.call('room-share-add', { roomId: plans.id, friendBot: row.roomId });

    await open(page, host, '#/');
    const side = page.getByRole('navigation', { name: 'FlyBot' });
    const link = side.getByRole('link', { name: /^Plans/ });
    await expect(link).toBeVisible({ timeout: 60_000 });
    await expect(link.locator('.badge.shared')).toBeVisible();
    await link.click();
    const shared = page.getByRole('region', { name: 'Friends\' Bots in this room' });
    await expect(shared.locator('.w-shared-from')).toHaveText('Shared room from Owner');
    await expect(shared.getByText('Atlas (Owner)')).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Shared room from Owner' })).toBeVisible();

    const box = page.getByRole('main').getByRole('textbox', { name: 'Message' });
    await box.fill('@Atlas how is the plan?');
    await box.press('Enter');
    const log = page.getByRole('log', { name: 'Room lines' });
    // Atlas answers on Alice's home and its line comes back here, shown
    // under its title, with no fence markup; Bob's own line is shown once.
    // (A line that names only Atlas opens no round for Bob's own Bolt.)
    const atlasLines = log.locator('.w-line-chat').filter({ has: page.locator('.w-line-author', { hasText: 'Atlas (Owner)' }) });
    await expect(atlasLines.first()).toContainText('how is the plan?', { timeout: 60_000 });
    await expect(atlasLines.first()).not.toContainText('untrusted-message');
    const mine = log.locator('.w-line-chat').filter({ has: page.locator('.w-line-author', { hasText: /^Owner$/ }) });
    await expect(mine).toHaveCount(1);
    await page.screenshot({ path: test.info().outputPath('shared-room.png') });
  } finally {
    await alice.stop();
    server.stop();
  }
});
