// Issue 31, "Past conversations": "New conversation" starts a fresh one (the
// chat opens empty and the Bot no longer sees the earlier lines); the earlier
// conversation is listed under "Past conversations" with its first line and
// reads as it was.
'use strict';

const { test, expect, open } = require('../fixtures');
const { expectAccessible } = require('../a11y');

test('a new conversation starts empty and the earlier one stays readable', async ({ page, host }) => {
  await host.api.state();
  const bot = await host.api.createBot('Ada');
  await open(page, host, `#/bot/${bot.id}`);
  const main = page.getByRole('main');
  const box = main.getByRole('textbox', { name: 'Message' });
  await box.fill('first topic: the garden');
  await box.press('Enter');
  await expect(main.getByText('(mock model) I received: first topic: the garden')).toBeVisible();

  await main.getByRole('button', { name: 'New conversation' }).click();
  await expect(main.getByText('This is the start of your chat with Ada.')).toBeVisible();
  await expect(main.getByText('first topic: the garden')).toHaveCount(0);
  await box.fill('second topic: the kitchen');
  await box.press('Enter');
  await expect(main.getByText('(mock model) I received: second topic: the kitchen')).toBeVisible();

  await main.getByRole('link', { name: 'Past conversations' }).click();
  const list = main.getByRole('list', { name: 'Conversations, newest first' });
  await expect(list.getByRole('listitem')).toHaveCount(2);
  await expect(list.getByRole('listitem').first()).toContainText('The current conversation');
  await page.screenshot({ path: test.info().outputPath('conversations-1280.png') });
  await expectAccessible(page, 'conversations');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('conversations-390-dark.png') });
  await expectAccessible(page, 'conversations (390 px, dark)');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
  await list.getByRole('link', { name: 'first topic: the garden' }).click();

  const earlier = main.getByRole('log', { name: 'An earlier conversation' });
  await expect(earlier.locator('.msg.user', { hasText: 'first topic: the garden' })).toBeVisible();
  await expect(earlier.getByText('(mock model) I received: first topic: the garden')).toBeVisible();
  await expect(earlier.getByText('second topic')).toHaveCount(0);
  await expectAccessible(page, 'an earlier conversation');

  await main.getByRole('link', { name: 'Back to the chat' }).click();
  await expect(main.getByText('(mock model) I received: second topic: the kitchen')).toBeVisible();
  await expect(main.getByText('first topic: the garden')).toHaveCount(0);
});
