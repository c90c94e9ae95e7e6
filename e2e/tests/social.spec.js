// Issue 33: Bots of different homes meet over Matrix. Bob connects his
// home to a real Synapse from Settings, adds Alice as a friend, sees the
// Bot Alice's home published to him with its owner's name, writes to it
// and reads its answer, in Settings and in the sidebar; once Alice stops
// sharing, both rows stay, marked no longer shared.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost } = require('../harness');
const synapse = require('../synapse');

test('A friend\'s published Bot is listed with its owner, answers, and stays when no longer shared', async ({ page, host }) => {
  test.skip(!synapse.available() && !process.env.FLYBOT_REQUIRE_SYNAPSE, 'Synapse is not installed (scripts/test installs it)');
  test.setTimeout(120_000);
  const server = await synapse.startSynapse();
  const alice = await startHost();
  try {
    const aliceId = await server.register('alice', 'alice-password-1');
    const bobId = await server.register('bob', 'bob-password-1');
    await alice.api.call('social-connect', { homeserver: server.url, user: 'alice', password: 'alice-password-1' });
    await alice.api.call('social-friend-add', { userId: bobId });

    await open(page, host, '#/settings');
    const section = page.getByRole('region', { name: 'Friends\' homes' });
    await section.getByLabel('Homeserver').fill(server.url);
    await section.getByLabel('User').fill('bob');
    await section.getByLabel('Password').fill('bob-password-1');
    await section.getByRole('button', { name: 'Connect' }).click();
    await expect(section.getByText(`Connected as ${bobId}`)).toBeVisible();
    await section.getByLabel('Matrix user').fill(aliceId);
    await section.getByRole('button', { name: 'Add friend' }).click();
    await expect(section.getByText(`${aliceId} · since`)).toBeVisible();

    const helper = (await alice.api.call('create-bot', { name: 'Helper' })).bot;
    await alice.api.call('social-publish', { botId: helper.id, userId: bobId });
    const row = section.locator('.social-bot');
    await expect(row.getByText('Helper (Owner)')).toBeVisible({ timeout: 30_000 });
    await expect(row.locator('.owner-badge')).toHaveText('Owner');
    // The sidebar lists it too, by the one label, with the owner badge (#498, #967).
    const side = page.getByRole('navigation', { name: 'FlyBot' }).locator('.friend-bots li');
    await expect(side.locator('.row-name')).toHaveText('Helper (Owner)', { timeout: 30_000 });
    await expect(side.locator('.owner-badge')).toHaveText('Owner');

    await row.getByLabel('Write to Helper (Owner)').fill('hello from Bob\'s page');
    await row.getByRole('button', { name: 'Send' }).click();
    await expect(row.getByText(/I received/)).toBeVisible({ timeout: 30_000 });
    // A live update may draw the section again mid-scroll: scroll to the one drawn now.
    await expect(async () => section.scrollIntoViewIfNeeded({ timeout: 2_000 })).toPass();
    await page.screenshot({ path: test.info().outputPath('social.png') });

    await alice.api.call('social-unpublish', { botId: helper.id, userId: bobId });
    await expect(row.getByText('no longer shared')).toBeVisible({ timeout: 30_000 });
    await expect(row.getByText(/I received/)).toBeVisible();
    await expect(row.getByRole('button', { name: 'Send' })).toHaveCount(0);
    // #956: the sidebar keeps the row, marked.
    await expect(side.locator('.badge.gone')).toHaveText('no longer shared', { timeout: 30_000 });
    await expect(side.locator('.row-name')).toHaveText('Helper (Owner)');
    await page.locator('.friends-side').screenshot({ path: test.info().outputPath('social-sidebar.png') });
  } finally {
    await alice.stop();
    server.stop();
  }
});
