// Issue 34: a local room's invite links (#852, #876, #878, #884, #892). Alice
// (her own page) opens her room "Plans", makes two links, sees them counted,
// copies one and revokes the other; Carol, nobody's friend (the main page),
// pastes the link in Settings, reads what it leads to, picks one of her two
// Bots and joins: the room appears in her sidebar with only that Bot, and
// Alice's room seats it. Revoke all leaves the seat. Screenshots at 1280 px
// and 390 px.
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

test('A stranger joins a room by its link, and the room\'s owner makes, counts, copies and revokes links', async ({ page, host, browser }) => {
  test.skip(!synapse.available() && !process.env.FLYBOT_REQUIRE_SYNAPSE, 'Synapse is not installed (scripts/test installs it)');
  test.setTimeout(240_000);
  const server = await synapse.startSynapse();
  const alice = await startHost();
  const aliceContext = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  try {
    await server.register('alice', 'alice-password-1');
    const carolId = await server.register('carol', 'carol-password-1');
    await alice.api.call('social-connect', { homeserver: server.url, user: 'alice', password: 'alice-password-1' });
    await host.api.call('social-connect', { homeserver: server.url, user: 'carol', password: 'carol-password-1' });
    const atlas = (await alice.api.call('create-bot', { name: 'Atlas' })).bot;
    const plans = (await alice.api.call('create-room', { name: 'Plans', members: [atlas.id], admin: atlas.id })).room;
    await host.api.call('create-bot', { name: 'Cleo' });
    await host.api.call('create-bot', { name: 'Cato' });

    // Alice's page: two links, counted; one copied, one revoked.
    const alicePage = await aliceContext.newPage();
    await open(alicePage, alice, `#/room/${plans.id}`);
    const links = alicePage.getByRole('region', { name: 'Invite by link' });
    await expect(links.getByText('No open link.')).toBeVisible();
    await links.getByRole('button', { name: 'New link' }).click();
    await expect(links.locator('.w-link-count')).toContainText('1 open link');
    await links.getByRole('button', { name: 'New link' }).click();
    await expect(links.locator('.w-link-count')).toContainText('2 open links');
    const urls = links.getByRole('textbox', { name: 'Invite link' });
    await expect(urls).toHaveCount(2);
    const link = await urls.nth(0).inputValue();
    expect(link).toMatch(/^https:\/\/localhost\/r\/bot-[0-9a-f]+\/[A-Za-z0-9_-]{22}$/);
    await links.getByRole('button', { name: 'Copy' }).nth(0).click();
    expect(await alicePage.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await links.getByRole('button', { name: 'Revoke', exact: true }).nth(1).click();
    await expect(links.locator('.w-link-count')).toContainText('1 open link');
    await expect(urls).toHaveCount(1);
    await expect(urls.nth(0)).toHaveValue(link);

    // Carol's page: paste, preview, pick Cleo, join.
    await open(page, host, '#/settings');
    const form = page.getByRole('form', { name: 'Join a room by link' });
    await form.getByLabel('Room invite link').fill(link);
    await form.getByRole('button', { name: 'Preview' }).click();
    await expect(form.locator('.room-link-summary')).toHaveText(/“Plans”, led by Atlas, from Owner \(@alice:localhost\)\./);
    // A team change redraws Settings (the Models section names the new Bot):
    // the pasted link and its preview stay under the person.
    await host.api.call('create-bot', { name: 'Dora' });
    await expect(page.getByRole('region', { name: 'Models' })).toContainText('Cato, Dora');
    await expect(form.getByLabel('Room invite link')).toHaveValue(link);
    await expect(form.locator('.room-link-summary')).toHaveText(/“Plans”, led by Atlas/);
    await form.getByLabel('Cleo').check();
    await page.setViewportSize({ width: 390, height: 844 });
    await form.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath('join-by-link-390.png'), fullPage: false });
    await page.setViewportSize({ width: 1280, height: 800 });
    await form.getByRole('button', { name: 'Join' }).click();
    await expect(form.locator('.room-link-summary')).toContainText(/Asked to join “Plans”|You are in “Plans”/);
    const side = page.getByRole('navigation', { name: 'FlyBot' });
    const room = side.getByRole('link', { name: /^Plans/ });
    await expect(room).toBeVisible({ timeout: 60_000 });
    await room.click();
    await expect(page.locator('.w-shared-from')).toHaveText('Shared room from Owner');
    const mirror = await until('the room on Carol\'s home', () => host.api.call('state'), (s) => (s.rooms || []).find((r) => r.sharedFrom));
    const carolBots = (await host.api.call('state')).bots;
    expect(mirror.members.map((id) => carolBots.find((b) => b.id === id).name)).toEqual(['Cleo']);

    // Alice's room seats Cleo from Carol's home, and no friend is made.
    await alicePage.reload();
    await expect(alicePage.getByRole('region', { name: 'Friends\' Bots in this room' }).locator('.w-person-name', { hasText: 'Cleo (carol)' })).toBeVisible({ timeout: 60_000 });
    await expect(links.getByText('joined by 1 home')).toBeVisible();
    await links.scrollIntoViewIfNeeded();
    await alicePage.screenshot({ path: test.info().outputPath('room-links-1280.png') });
    await alicePage.setViewportSize({ width: 390, height: 844 });
    await alicePage.getByRole('button', { name: 'Members' }).click();
    await links.scrollIntoViewIfNeeded();
    await alicePage.screenshot({ path: test.info().outputPath('room-links-390.png') });
    const overflow = await alicePage.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
    expect(overflow).toBe(false);
    await alicePage.setViewportSize({ width: 1280, height: 800 });
    await links.getByRole('button', { name: 'Revoke all' }).click();
    await expect(links.getByText('No open link.')).toBeVisible();
    await expect(alicePage.getByRole('region', { name: 'Friends\' Bots in this room' }).locator('.w-person-name', { hasText: 'Cleo (carol)' })).toBeVisible();
    expect((await alice.api.call('social')).friends).toEqual([]);
    expect(carolId).toBe('@carol:localhost');
  } finally {
    await aliceContext.close();
    await alice.stop();
    server.stop();
  }
});
