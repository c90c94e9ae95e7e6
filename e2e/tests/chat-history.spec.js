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
