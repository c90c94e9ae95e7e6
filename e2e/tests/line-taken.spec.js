// Issue 31, "The line is taken at once": after Enter the person's line shows
// at once, marked as waiting for more lines through the settle window, with
// Stop; Stop in that window sends nothing and puts the line back in the box.
'use strict';

const { test, expect, open } = require('../fixtures');

test('the line shows at once, waiting for more lines, with Stop', async ({ page, host }) => {
  await host.api.state();
  const bot = await host.api.createBot('Ada');
  await open(page, host, `#/bot/${bot.id}`);
  const main = page.getByRole('main');
  const box = main.getByRole('textbox', { name: 'Message' });
  await box.fill('hello there');
  await box.press('Enter');

  // Well inside the ~1.5 s settle window.
  const line = main.locator('.msg.user.pending', { hasText: 'hello there' });
  await expect(line).toBeVisible({ timeout: 700 });
  await expect(line).toContainText('waiting for more lines', { timeout: 700 });
  await expect(main.getByRole('status').filter({ hasText: 'Waiting for more lines' })).toBeVisible({ timeout: 700 });
  await expect(main.getByRole('button', { name: 'Stop' })).toBeVisible({ timeout: 700 });
  await page.screenshot({ path: test.info().outputPath('waiting-1280.png') });

  // Then the turn takes the line and answers; the waiting state goes.
  await expect(main.getByText('(mock model) I received: hello there')).toBeVisible();
  await expect(main.locator('.msg.user.pending')).toHaveCount(0);
  await expect(main.getByText('waiting for more lines')).toHaveCount(0);
  await expect(main.getByRole('button', { name: 'Stop' })).toBeHidden();
});

test('Stop in the settle window sends nothing and gives the line back', async ({ page, host }) => {
  await host.api.state();
  const bot = await host.api.createBot('Ada');
  await open(page, host, `#/bot/${bot.id}`);
  const main = page.getByRole('main');
  const box = main.getByRole('textbox', { name: 'Message' });
  await box.fill('never mind');
  await box.press('Enter');
  await expect(box).toHaveValue('');
  const stop = main.getByRole('button', { name: 'Stop' });
  await expect(stop).toBeVisible({ timeout: 700 });
  await stop.click();

  await expect(box).toHaveValue('never mind');
  await expect(box).toBeFocused();
  await expect(main.locator('.msg.user.pending')).toHaveCount(0);
  await expect(stop).toBeHidden();
  // Past the settle window: no turn ran, nothing was written.
  await page.waitForTimeout(2500);
  await expect(main.getByText('(mock model) I received: never mind')).toHaveCount(0);
  expect((await host.api.messages({ botId: bot.id })).filter((m) => m.kind === 'user')).toEqual([]);
});
