// Issue 34, #456: a Bot's face-to-face line held by its Ask-first policy.
// Alice's home makes a room; Bob (the page) joins it with his Bolt, whose
// sends wait for Bob's approval. Alice's line is answered by Bolt on Bob's
// home: the line shows in Bob's room as waiting for his approval and does
// not reach Alice; the Inbox's card says Send, and then it goes, once.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost } = require('../harness');
const synapse = require('../synapse');

test("A Bot's face-to-face line held for approval shows as waiting and goes to the other home on Send", async ({ page, host }) => {
  test.skip(!synapse.available() && !process.env.FLYBOT_REQUIRE_SYNAPSE, 'Synapse is not installed (scripts/test installs it)');
  test.setTimeout(180_000);
  const server = await synapse.startSynapse();
  const alice = await startHost();
  try {
    await server.register('alice', 'alice-password-1');
    await server.register('bob', 'bob-password-1');
    await alice.api.call('social-connect', { homeserver: server.url, user: 'alice', password: 'alice-password-1' });
    const me = await host.api.call('social-connect', { homeserver: server.url, user: 'bob', password: 'bob-password-1' });
    const bolt = (await host.api.call('create-bot', { name: 'Bolt' })).bot;
    await host.api.call('social-policy', { botId: bolt.id, policy: 'ask-first' });
    const made = await alice.api.call('face-room-create', { bots: [] });
    const joined = await host.api.call('face-room-join', { code: made.room.face.code, bots: [bolt.id] });
    const seat = `${me.account.userId}/${bolt.id}`;
    const boltsAtAlice = async () => (await alice.api.call('messages', { roomId: made.room.id })).messages.filter((l) => l.authorId === seat).length;
    await expect.poll(async () => Object.keys((await alice.api.call('state', {})).rooms.find((r) => r.id === made.room.id).face.homes).length, { timeout: 60_000 }).toBe(2);

    await open(page, host, `#/room/${joined.room.id}`);
    await alice.api.call('send', { roomId: made.room.id, text: 'Bob, can Bolt check the launch list?' });
    const log = page.getByRole('log', { name: 'Room lines' });
    const boltLine = log.locator('.w-line-chat').filter({ has: page.locator('.w-line-author', { hasText: /^Bolt$/ }) });
    await expect(boltLine.getByRole('status')).toHaveText(/Waiting for your approval/, { timeout: 60_000 });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: test.info().outputPath('face-held-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: test.info().outputPath('face-held-390.png'), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await boltsAtAlice()).toBe(0);

    await open(page, host, '#/inbox');
    const card = page.getByRole('group', { name: /Bolt wants to say in the face-to-face room/ });
    await expect(card).toContainText('launch list');
    await expect(card.getByRole('link', { name: 'Open the room' })).toBeVisible();
    await card.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(card).toHaveCount(0);
    await expect.poll(boltsAtAlice, { timeout: 60_000 }).toBe(1);

    await open(page, host, `#/room/${joined.room.id}`);
    await expect(boltLine).toHaveCount(1);
    await expect(boltLine.locator('.w-held')).toHaveCount(0);
  } finally {
    await alice.stop();
    server.stop();
  }
});
