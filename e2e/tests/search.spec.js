// Issue 31, "Search": the sidebar's box finds a line in a Bot's chat and in
// a room, the results mark the matched word, and a result opens the
// conversation at that line, scrolled to it and marked.
'use strict';

const { test, expect, open } = require('../fixtures');

test('a word typed in the sidebar finds chat and room lines; a result opens at its line', async ({ page, host }) => {
  await host.api.state();
  const bot = await host.api.createBot('Archivist');
  // Enough lines that the first one is off screen when the chat opens.
  for (let n = 1; n <= 12; n += 1) {
    const note = n === 1 ? 'The quokka census starts on Monday' : `Filler note ${n} about nothing much`;
    await host.api.send({ botId: bot.id }, note);
    await expect
      .poll(async () => (await host.api.call('messages', { botId: bot.id, limit: 1 })).messages.map((m) => m.kind).join(), { intervals: [50] })
      .toBe('turn-end');
  }
  const room = (await host.api.call('create-room', { name: 'Field team', members: [bot.id] })).room;
  await host.api.call('send', { roomId: room.id, text: 'Who counts the quokka colony?' });
  await expect
    .poll(async () => (await host.api.call('messages', { roomId: room.id })).running, { intervals: [100] })
    .toBe(false);

  await open(page, host, '#/');
  // The home screen opens the first Bot's chat; search from there.
  await expect(page).toHaveURL(/#\/bot\//);
  const box = page.getByRole('search').getByRole('searchbox', { name: 'Search chats and rooms' });
  await box.fill('quokka');
  await box.press('Enter');
  await expect(page).toHaveURL(/#\/search\?q=quokka$/);
  const main = page.getByRole('main');
  await expect(main.getByRole('status')).toContainText('found for “quokka”');
  // The mock model answers with what it was given, so its lines match too:
  // the person's own lines are the ones whose whole text is the snippet.
  const hitOf = (where, text) => main.getByRole('link', { name: new RegExp(`^${where}`) }).filter({ has: page.locator('.hit-text').getByText(text, { exact: true }) });
  const inChat = hitOf('Chat with Archivist', 'The quokka census starts on Monday');
  const inRoom = hitOf('Room Field team', 'Who counts the quokka colony?');
  await expect(inChat).toBeVisible();
  await expect(inRoom).toBeVisible();
  await expect(inChat.locator('mark')).toHaveText('quokka');
  await page.screenshot({ path: test.info().outputPath('search-results.png') });

  await inChat.click();
  await expect(page).toHaveURL(new RegExp(`#/bot/${bot.id}/line/\\d+$`));
  const found = main.locator('.msg.found');
  await expect(found).toHaveCount(1);
  await expect(found).toContainText('The quokka census starts on Monday');
  await expect(found).toBeInViewport();
  await expect(found).toBeFocused();

  await page.goBack();
  await inRoom.click();
  const line = main.locator('.w-line.found');
  await expect(line).toContainText('Who counts the quokka colony?');
  await expect(line).toBeInViewport();
});

test('a search that finds nothing says so, and one with no word is refused in words', async ({ page, host }) => {
  await host.api.state();
  await open(page, host, '#/search?q=zebrafinch');
  const main = page.getByRole('main');
  await expect(main.getByRole('status')).toHaveText('Nothing found for “zebrafinch”.');
  await open(page, host, `#/search?q=${encodeURIComponent('()')}`);
  await expect(main.getByRole('alert')).toHaveText('Type a word to search for.');
});
