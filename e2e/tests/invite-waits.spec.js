// Issue 34, #1064: why a home waits on a room's link, on the room's own
// page. Alice's Atlas asks her first before it sends to other homes, so
// when Carol (nobody's friend, the main page's host) claims Alice's link
// with Cleo, the seat is held: Alice's Invite by link section names
// Carol's home, the Bot she brings and the reason, and Seat them (the
// room admin's approval) seats Cleo. Screenshots at 1280 px and 390 px.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost } = require('../harness');
const synapse = require('../synapse');

async function until(what, call, pick) {
  for (let i = 0; i < 600; i += 1) {
    const found = pick(await call());
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never saw ${what}`);
}

test('A held seat shows its reason and the Bots it brings, and Seat them seats it', async ({ host, browser }) => {
  test.skip(!synapse.available() && !process.env.FLYBOT_REQUIRE_SYNAPSE, 'Synapse is not installed (scripts/test installs it)');
  test.setTimeout(240_000);
  const server = await synapse.startSynapse();
  const alice = await startHost();
  const context = await browser.newContext();
  try {
    await server.register('alice', 'alice-password-1');
    await server.register('carol', 'carol-password-1');
    await alice.api.call('social-connect', { homeserver: server.url, user: 'alice', password: 'alice-password-1' });
    await host.api.call('social-connect', { homeserver: server.url, user: 'carol', password: 'carol-password-1' });
    const atlas = (await alice.api.call('create-bot', { name: 'Atlas' })).bot;
    const plans = (await alice.api.call('create-room', { name: 'Plans', members: [atlas.id], admin: atlas.id })).room;
    await alice.api.call('social-policy', { botId: atlas.id, policy: 'ask-first' });
    const cleo = (await host.api.call('create-bot', { name: 'Cleo' })).bot;
    const link = (await alice.api.call('room-invite-mint', { roomId: plans.id })).minted.url;
    await host.api.call('room-invite-ask', { link, bots: [cleo.id] });
    await until('the held seat', () => alice.api.call('room-invite', { roomId: plans.id }), (l) => l.waiting['@carol:localhost']?.code === 'held');

    const page = await context.newPage();
    await open(page, alice, `#/room/${plans.id}`);
    const links = page.getByRole('region', { name: 'Invite by link' });
    const wait = links.locator('.w-link-wait[data-code="held"]');
    await expect(wait).toHaveText('@carol:localhost (Cleo): waiting for your approval; Seat them lets them in');
    await links.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath('invite-held-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Members' }).click();
    await links.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath('invite-held-390.png') });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
    expect(overflow).toBe(false);
    await page.setViewportSize({ width: 1280, height: 800 });

    await links.getByRole('button', { name: 'Seat them' }).click();
    await expect(wait).toHaveCount(0);
    await expect(links.getByText('joined by 1 home')).toBeVisible();
    await page.reload();
    await expect(page.getByRole('region', { name: 'Friends\' Bots in this room' }).locator('.w-person-name', { hasText: 'Cleo (carol)' })).toBeVisible();
  } finally {
    await context.close();
    await alice.stop();
    server.stop();
  }
});
