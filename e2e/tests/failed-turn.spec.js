// Issue 12, "A Bot's chat": "a failed turn shown with the #1347 sentence,
// never the raw provider text". The Bot's provider (the product's mock as an
// HTTP model) refuses its key; the page says so in the fixed sentence.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startMockModel } = require('../harness');

let model;
let host;
test.beforeEach(async () => {
  model = await startMockModel([
    { fail: { status: 401, code: 'invalid_api_key', type: 'invalid_request_error' } },
  ]);
  host = await startHost({ models: { scripted: model.baseUrl } });
});
test.afterEach(async () => {
  await host.stop();
  await model.stop();
});

async function failOnce(page) {
  await host.api.state();
  const bot = await host.api.createBot('Locked', { model: 'scripted' });
  await open(page, host, `#/bot/${bot.id}`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Are you there?');
  await box.press('Enter');
}

test('a failed turn is said plainly, never with the provider text', async ({ page }) => {
  await failOnce(page);
  const main = page.getByRole('main');
  await expect(main.getByText(/failed/i).first()).toBeVisible();
  await expect(main.getByText(/API key/).first()).toBeVisible();
  // The provider's own words (the mock's refusal body) never reach the page.
  await expect(page.getByText(/told to refuse|invalid_api_key|invalid_request_error/)).toHaveCount(0);
  // The sidebar marks the Bot's last turn as failed.
  await expect(page.getByRole('navigation').first().getByRole('link', { name: /Locked/ })).toContainText(/fail/i);
});

// The chat shows the messages answer's `sentence` (core fences/failure.rs, AUTH here).
test('a failed turn is shown with the #1347 sentence', async ({ page }) => {
  await failOnce(page);
  await expect(
    page.getByRole('main').getByText('The provider refused the API key. Check it in Settings → Models.'),
  ).toBeVisible();
});
