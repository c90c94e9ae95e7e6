// Issue 33, part 1's last pieces on the page, against a real Synapse and
// two real homes: a reply a Bot's policy holds (#52, #417, #418) waits in
// the Inbox beside the other holds with Send / Don't send; a friend's Bot
// opens a chat screen of its own from the sidebar (its lines, a box to
// write, "no longer shared" when the share ends, #956); and a stranger's
// invite is declined in Settings.
'use strict';

const { test, expect, open, holdNext } = require('../fixtures');
const { startHost } = require('../harness');
const synapse = require('../synapse');

/** Connects `home` as `name` and makes it and `friend` friends both ways. */
async function connect(server, home, name) {
  const id = await server.register(name, `${name}-password-1`);
  await home.api.call('social-connect', { homeserver: server.url, user: name, password: `${name}-password-1` });
  return id;
}

async function friends(a, aId, b, bId) {
  await a.api.call('social-friend-add', { userId: bId });
  await b.api.call('social-friend-add', { userId: aId });
}

/** The friend's Bot rows of `home`'s view, once `pred` holds for them. */
async function remoteBots(home, pred) {
  let bots = [];
  await expect
    .poll(
      async () => {
        bots = (await home.api.call('social')).remoteBots;
        return pred(bots);
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return bots;
}

test('A reply its Bot\'s policy holds waits in the Inbox for Send or Don\'t send (#52)', async ({ page, host }) => {
  test.skip(!synapse.available() && !process.env.FLYBOT_REQUIRE_SYNAPSE, 'Synapse is not installed (scripts/test installs it)');
  test.setTimeout(120_000);
  const server = await synapse.startSynapse();
  const bob = await startHost();
  try {
    const aliceId = await connect(server, host, 'alice');
    const bobId = await connect(server, bob, 'bob');
    await friends(host, aliceId, bob, bobId);
    const helper = (await host.api.call('create-bot', { name: 'Helper' })).bot;
    await host.api.call('social-publish', { botId: helper.id, userId: bobId });

    // The owner chooses the policy in Settings.
    await open(page, host, '#/settings');
    const section = page.getByRole('region', { name: 'Friends\' homes' });
    await section.getByLabel('How Helper sends to friends').selectOption('ask-first');
    await expect.poll(async () => (await host.api.call('social')).bots[0].policy).toBe('ask-first');

    const [row] = await remoteBots(bob, (bots) => bots.length === 1);
    await bob.api.call('social-send', { roomId: row.roomId, text: 'first question' });
    await page.goto(`${host.url}/#/inbox`);
    const card = page.locator('.approval').filter({ hasText: 'Helper wants to reply to your friend' });
    await expect(card).toBeVisible({ timeout: 30_000 });
    await expect(card).toContainText('first question');
    await expect(card.getByRole('button', { name: 'Send', exact: true })).toBeVisible();
    await expect(card.getByRole('button', { name: 'Don\'t send' })).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('friend-hold.png') });
    await card.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(card).toHaveCount(0);
    await remoteBots(bob, (bots) => bots[0].lines.filter((l) => l.fromHome === aliceId).length === 1);

    await bob.api.call('social-send', { roomId: row.roomId, text: 'second question' });
    const second = page.locator('.approval').filter({ hasText: 'second question' });
    await expect(second).toBeVisible({ timeout: 30_000 });
    await second.getByRole('button', { name: 'Don\'t send' }).click();
    await expect(second).toHaveCount(0);
    const statuses = async () => (await host.api.call('social')).bots[0].heldReplies.map((r) => r.status).sort();
    await expect.poll(statuses).toEqual(['approved', 'rejected']);
    await expect(page.getByText('No tool call or message waits for your approval.')).toBeVisible();

    // #404: the share ends while a reply is held. Send sends nothing, and
    // the card says why, through the Inbox's redraws, until dismissed.
    await bob.api.call('social-send', { roomId: row.roomId, text: 'third question' });
    const third = page.locator('.approval').filter({ hasText: 'third question' });
    await expect(third).toBeVisible({ timeout: 30_000 });
    await host.api.call('social-unpublish', { botId: helper.id, userId: bobId });
    await third.getByRole('button', { name: 'Send', exact: true }).click();
    const failed = page.locator('.approval').filter({ hasText: 'no longer shared' });
    await expect(failed.getByRole('alert')).toContainText('Helper wants to reply to your friend');
    // The outcome is still on the screen: the summary does not call it nothing.
    await expect(page.getByText('Nothing else waits for you: read the outcome below, then dismiss it.')).toBeVisible();
    await expect(page.getByText('No tool call or message waits for your approval.')).toHaveCount(0);
    await expect(failed).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('friend-hold-failed.png') });
    // At phone width the card still reads and nothing runs off the window.
    await page.setViewportSize({ width: 390, height: 800 });
    await expect(failed.getByRole('button', { name: 'Dismiss' })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: test.info().outputPath('friend-hold-failed-390.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    await failed.getByRole('button', { name: 'Dismiss' }).click();
    await expect(failed).toHaveCount(0);
    await expect(page.getByText('Nothing waits for you.')).toBeVisible();
    await expect(page.getByText('No tool call or message waits for your approval.')).toBeVisible();
    await expect.poll(statuses).toEqual(['approved', 'failed', 'rejected']);
  } finally {
    await bob.stop();
    server.stop();
  }
});

test('A friend\'s Bot opens its own chat from the sidebar, and a stranger\'s invite is declined in Settings', async ({ page, host }) => {
  test.skip(!synapse.available() && !process.env.FLYBOT_REQUIRE_SYNAPSE, 'Synapse is not installed (scripts/test installs it)');
  test.setTimeout(120_000);
  const server = await synapse.startSynapse();
  const alice = await startHost();
  const carol = await startHost();
  try {
    const bobId = await connect(server, host, 'bob');
    const aliceId = await connect(server, alice, 'alice');
    const carolId = await connect(server, carol, 'carol');
    await friends(alice, aliceId, host, bobId);
    const helper = (await alice.api.call('create-bot', { name: 'Helper' })).bot;
    await alice.api.call('social-publish', { botId: helper.id, userId: bobId });

    await open(page, host, '');
    const side = page.getByRole('navigation', { name: 'FlyBot' }).locator('.friend-bots li a');
    await expect(side).toHaveText(/Helper \(Owner\)/, { timeout: 30_000 });
    await side.click();
    await expect(page).toHaveURL(/#\/friend\//);
    const main = page.locator('#main');
    await expect(main.getByRole('heading', { level: 1 })).toContainText('Helper (Owner)');
    await expect(main.locator('h1 .owner-badge')).toHaveText('Owner');
    await main.getByLabel('Write to Helper (Owner)').fill('hello from Bob\'s own chat');
    await main.getByRole('button', { name: 'Send', exact: true }).click();
    const lines = main.locator('.friend-lines li');
    await expect(lines.first()).toContainText('You');
    await expect(lines.first()).toContainText('hello from Bob\'s own chat');
    await expect(main.locator('.friend-line.theirs')).toContainText(/I received/, { timeout: 30_000 });
    await expect(main.locator('.friend-line.theirs strong')).toHaveText('Helper (Owner)');
    await page.screenshot({ path: test.info().outputPath('friend-chat.png') });
    // At phone width the chat still reads and nothing runs off the window.
    await page.setViewportSize({ width: 390, height: 800 });
    await expect(main.getByLabel('Write to Helper (Owner)')).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: test.info().outputPath('friend-chat-390.png') });
    await page.setViewportSize({ width: 1280, height: 800 });

    // A refusal stays on the screen through the redraws a change on the team brings,
    // also one that comes while the answer is awaited, and so does the line typed.
    const box = main.getByLabel('Write to Helper (Owner)');
    const tooLong = 'x'.repeat(20_001);
    const send = holdNext(page, 'social-send');
    await box.fill(tooLong);
    await main.getByRole('button', { name: 'Send', exact: true }).click();
    await send.held;
    const redrawn = page.waitForResponse((r) => r.url().endsWith('/api/bot/social'));
    await host.api.call('create-bot', { name: 'Scribe' });
    await redrawn;
    send.release();
    await expect(box).toHaveAccessibleDescription('Write a line of at most 20000 characters.');
    const again = page.waitForResponse((r) => r.url().endsWith('/api/bot/social'));
    await host.api.call('create-bot', { name: 'Tally' });
    await again;
    await expect(box).toHaveAccessibleDescription('Write a line of at most 20000 characters.');
    await expect(box).toHaveValue(tooLong);
    await expect(lines).toHaveCount(2);
    await page.screenshot({ path: test.info().outputPath('friend-send-refused.png') });

    // A refusal that names no field shows in the form's alert and stays there too. The
    // host's answer is stood in for here: the share ending first hides the box itself.
    const notShared = 'The Bot is no longer shared with you, so messages to it cannot be delivered. Ask its owner for a new invite.';
    await page.route(
      '**/api/bot/social-send',
      (route) => route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ ok: false, error: { code: 'bot/forbidden', message: notShared } }) }),
      { times: 1 },
    );
    await box.fill('one more line');
    await main.getByRole('button', { name: 'Send', exact: true }).click();
    const alert = main.locator('.friend-write').getByRole('alert');
    await expect(alert).toHaveText(notShared);
    const later = page.waitForResponse((r) => r.url().endsWith('/api/bot/social'));
    await host.api.call('create-bot', { name: 'Quill' });
    await later;
    await expect(page.getByRole('navigation', { name: 'FlyBot' }).getByText('Quill')).toBeVisible();
    await expect(alert).toHaveText(notShared);
    await expect(box).toHaveAccessibleDescription('');
    await box.fill('');

    // #956: the share ends; the screen keeps its lines, says so, and has no box.
    await alice.api.call('social-unpublish', { botId: helper.id, userId: bobId });
    await expect(main.getByText(/No longer shared/)).toBeVisible({ timeout: 30_000 });
    await expect(lines).toHaveCount(2);
    await expect(main.getByRole('button', { name: 'Send', exact: true })).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath('friend-chat-gone.png') });

    // A stranger's invite waits in Settings until it is declined.
    await carol.api.call('social-friend-add', { userId: bobId });
    const cat = (await carol.api.call('create-bot', { name: 'Cat' })).bot;
    await carol.api.call('social-publish', { botId: cat.id, userId: bobId });
    await page.goto(`${host.url}/#/settings`);
    const section = page.getByRole('region', { name: 'Friends\' homes' });
    const invite = section.locator('.social-invite').filter({ hasText: carolId });
    await expect(async () => {
      await page.reload();
      await expect(invite).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await invite.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(async () => (await host.api.call('social')).invites).toEqual([]);
    await page.reload();
    await expect(section.locator('.social-invite')).toHaveCount(0);
    await expect(section.getByText(`${carolId} · since`)).toHaveCount(0);
  } finally {
    await alice.stop();
    await carol.stop();
    server.stop();
  }
});
