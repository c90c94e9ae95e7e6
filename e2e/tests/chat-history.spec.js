// Issue 12, "A Bot's chat: its history (paged, the newest first on
// screen)": lines sent in a burst (the host folds the ones that arrive in
// its settle window into one turn) show on the page as the host holds them:
// each answer once, the newest on screen.
'use strict';

const { test, expect, open } = require('../fixtures');

// The streaming draft is only what a turn streamed beyond its log (chat.js),
// so deltas and the log may arrive in either order; run with --repeat-each 5.
test('a burst of lines: every answer shown once, the newest on screen', async ({ page, host }) => {
  await host.api.state();
  const bot = await host.api.createBot('Archivist');
  await open(page, host, `#/bot/${bot.id}`);
  for (let n = 1; n <= 100; n += 1) {
    await host.api.send({ botId: bot.id }, `Note ${String(n).padStart(3, '0')} for the record`);
  }
  const main = page.getByRole('main');
  await expect(main.getByText(/Note 100 for the record/).first()).toBeVisible();
  // Wait for the host to finish every turn, then compare with its log.
  await expect(page.getByRole('button', { name: /^Stop/ })).toBeHidden();
  await expect
    .poll(async () => (await host.api.call('messages', { botId: bot.id })).running, { intervals: [100] })
    .toBe(false);
  const answers = (await host.api.messages({ botId: bot.id })).filter((m) => m.kind === 'assistant');
  expect(answers.length).toBeGreaterThan(0);
  for (const answer of answers) {
    const first = answer.text.split('\n')[0];
    await expect(main.getByText(first, { exact: false })).toHaveCount(1);
  }
});

// The chat loads the newest 80 lines, "Load earlier" the page before them;
// neither the chat nor the sidebar's unread check reads the whole history.
test('a long history is paged: the newest page first, Load earlier for the rest', async ({ page, host }) => {
  await host.api.state();
  const bot = await host.api.createBot('Archivist');
  // One line at a time, each answered before the next (a burst folds into
  // one turn): 28 turns of user, answer and turn end are 84 lines.
  test.setTimeout(120_000);
  for (let n = 1; n <= 28; n += 1) {
    const note = `Note ${String(n).padStart(3, '0')} for the record`;
    await host.api.send({ botId: bot.id }, note);
    await expect
      .poll(async () => (await host.api.call('messages', { botId: bot.id, limit: 3 })).messages.map((m) => m.text || m.kind).join('|'), { intervals: [50] })
      .toMatch(new RegExp(`^${note}\\|.*\\|turn-end$`));
  }
  const asks = [];
  page.on('request', (r) => r.url().endsWith('/api/bot/messages') && asks.push(JSON.parse(r.postData())));
  await open(page, host, `#/bot/${bot.id}`);
  const main = page.getByRole('main');
  await expect(main.locator('.msg.user', { hasText: 'Note 028 for the record' })).toBeVisible();
  // Answers echo the notes (the mock), so look for the person's own line.
  const note1 = main.locator('.msg.user', { hasText: 'Note 001 for the record' });
  await expect(note1).toHaveCount(0);
  await main.getByRole('button', { name: 'Load earlier' }).click();
  await expect(note1).toHaveCount(1);
  await expect(main.getByRole('button', { name: 'Load earlier' })).toBeHidden();
  expect(asks.length).toBeGreaterThan(0);
  for (const body of asks) expect(body.limit !== undefined || body.after > 0, JSON.stringify(body)).toBe(true);
  expect(asks.some((b) => b.before > 0 && b.limit === 80)).toBe(true);
});
