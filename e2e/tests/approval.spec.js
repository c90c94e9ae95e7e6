// Issue 12, "Tests in a real browser": "an approval card answered from the
// page releases the tool call". The Bot runs on the product's own mock
// model (`flybot mock-model serve --scenario`), scripted to call
// run_command, which asks its owner before every run (#540).
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startMockModel } = require('../harness');

let model;
let host;
test.beforeEach(async () => {
  model = await startMockModel([
    {
      when: { userContains: 'run the greeting', step: 0 },
      reply: { toolCalls: [{ name: 'run_command', arguments: { argv: ['echo', 'hello-from-the-tool'] } }] },
    },
    { when: { afterTool: 'run_command' }, reply: { text: 'The command ran and said hello.' } },
  ]);
  host = await startHost({ models: { scripted: model.baseUrl } });
});
test.afterEach(async () => {
  await host.stop();
  await model.stop();
});

test('an approval card answered from the page releases the tool call', async ({ page }) => {
  await host.api.state();
  const bot = await host.api.createBot('Runner', { model: 'scripted' });
  await open(page, host, `#/bot/${bot.id}`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Please run the greeting');
  await box.press('Enter');

  const card = page.getByRole('main').getByRole('group', { name: /Runner asks to use run_command/ });
  await expect(card).toBeVisible();
  await expect(card.getByText(/echo/)).toBeVisible();
  await card.getByRole('button', { name: 'Allow once' }).click();

  await expect(card).toBeHidden();
  // The turn went on after the tool ran, and the tool's row holds its output.
  const main = page.getByRole('main');
  await expect(main.getByText('The command ran and said hello.')).toBeVisible();
  // The turn has ended: nothing left to stop.
  await expect(page.getByRole('button', { name: /^Stop/ })).toBeHidden();
  await main.getByText('run_command', { exact: true }).click();
  await expect(main.getByText('hello-from-the-tool').first()).toBeVisible();
});
