// Issue 31, "Per-message actions": Copy on a line and an answer; Retry on a
// failed turn sends its line again; Edit on the person's last line puts it
// back in the box, and the edited text goes as a new line (the earlier line
// and its answer stay in the transcript, as the Bot saw them).
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startMockModel } = require('../harness');

let model;
let host;
test.beforeEach(async () => {
  model = await startMockModel([
    { when: { userContains: 'flaky' }, times: 1, fail: { status: 401, code: 'invalid_api_key', type: 'invalid_request_error' } },
    { when: { userContains: 'flaky' }, reply: { text: 'Worked this time.' } },
    { when: { userContains: 'colour' }, reply: { text: 'A **fine** colour.' } },
  ]);
  host = await startHost({ models: { scripted: model.baseUrl } });
});
test.afterEach(async () => {
  await host.stop();
  await model.stop();
});

test('Retry on a failed turn sends its line again', async ({ page }) => {
  await host.api.state();
  const bot = await host.api.createBot('Flaky', { model: 'scripted' });
  await open(page, host, `#/bot/${bot.id}`);
  const main = page.getByRole('main');
  const box = main.getByRole('textbox', { name: 'Message' });
  await box.fill('a flaky question');
  await box.press('Enter');
  const failed = main.locator('.turn-note.failed');
  await expect(failed).toContainText('The provider refused the API key.');
  await failed.getByRole('button', { name: 'Retry' }).click();
  await expect(main.getByText('Worked this time.')).toBeVisible();
  // The retry is a new line of its own; the failed turn stays, without its Retry.
  await expect(main.locator('.msg.user', { hasText: 'a flaky question' })).toHaveCount(2);
  await expect(failed.getByRole('button', { name: 'Retry' })).toHaveCount(0);
});

test('Copy a line, and Edit the last one to send it again as a new line', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await host.api.state();
  const bot = await host.api.createBot('Painter', { model: 'scripted' });
  await open(page, host, `#/bot/${bot.id}`);
  const main = page.getByRole('main');
  const box = main.getByRole('textbox', { name: 'Message' });
  await box.fill('my colour is blu');
  await box.press('Enter');
  const answer = main.locator('.msg.assistant').last();
  await expect(answer).toBeVisible();

  await answer.getByRole('button', { name: 'Copy this answer' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('A **fine** colour.');

  const mine = main.locator('.msg.user', { hasText: 'my colour is blu' });
  await mine.getByRole('button', { name: 'Edit your last line and send it again' }).click();
  await expect(box).toHaveValue('my colour is blu');
  await expect(box).toBeFocused();
  await box.press('End');
  await box.type('e');
  await box.press('Enter');
  await expect(main.locator('.msg.user', { hasText: 'my colour is blue' })).toBeVisible();
  await expect(main.locator('.msg.assistant')).toHaveCount(2);
  // Edit moves to the newest line; the earlier line stays as it was sent.
  await expect(main.getByRole('button', { name: 'Edit your last line and send it again' })).toHaveCount(1);
  await expect(main.locator('.msg.user', { hasText: 'my colour is blue' }).getByRole('button', { name: /^Edit/ })).toBeVisible();
  await expect(main.locator('.msg.user')).toHaveCount(2);
  await page.screenshot({ path: test.info().outputPath('actions-1280.png') });
});
