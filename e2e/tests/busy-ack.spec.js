// Issue 13, busy-send acknowledgment (#1584, #1665): a line sent while the
// Bot's turn runs (here it waits on an approval) shows one Bot bubble that
// fills with the sentence a short model call wrote, and the turn's end
// clears it. The Bot runs on the product's mock as an HTTP model.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startMockModel } = require('../harness');

const SENTENCE = 'Your deploy question came in while I wait on the greeting command.';

let model;
let host;
test.beforeEach(async () => {
  model = await startMockModel([
    { when: { systemContains: 'still busy' }, reply: { text: SENTENCE } },
    {
      when: { userContains: 'run the greeting', step: 0 },
      reply: { toolCalls: [{ name: 'run_command', arguments: { argv: ['echo', 'hello'] } }] },
    },
    { when: { afterTool: 'run_command' }, reply: { text: 'The command ran.' } },
  ]);
  host = await startHost({ models: { scripted: model.baseUrl } });
});
test.afterEach(async () => {
  await host.stop();
  await model.stop();
});

test('a line sent while the turn runs is acknowledged, then cleared with the turn', async ({ page }) => {
  await host.api.state();
  const bot = await host.api.createBot('Runner', { model: 'scripted' });
  await open(page, host, `#/bot/${bot.id}`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Please run the greeting');
  await box.press('Enter');
  const main = page.getByRole('main');
  const card = main.getByRole('group', { name: /Runner asks to use run_command/ });
  await expect(card).toBeVisible();

  await box.fill('And what about the deploy?');
  await box.press('Enter');
  const ack = main.locator('.msg.ack');
  await expect(ack).toHaveText(SENTENCE);
  await page.screenshot({ path: test.info().outputPath('busy-ack.png') });

  await card.getByRole('button', { name: 'Allow once' }).click();
  // The line was steered into the turn's next step; once the turn ends, the
  // acknowledgment is gone.
  await expect(page.getByRole('button', { name: /^Stop/ })).toBeHidden();
  await expect(ack).toHaveCount(0);
  await expect(main.locator('.msg.user').getByText('And what about the deploy?')).toHaveCount(1);
});

test('in a room, a line steered into the speaking member is acknowledged on that member', async ({ page }) => {
  await host.api.state();
  const bot = await host.api.createBot('Runner', { model: 'scripted' });
  const room = await host.api.createRoom('Ops', [bot.id]);
  await open(page, host, `#/room/${room.id}`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('@Runner run the greeting');
  await box.press('Enter');
  const main = page.getByRole('main');
  await expect(main.getByText('Runner is speaking.')).toBeVisible();

  await box.fill('And what about the deploy?');
  await box.press('Enter');
  const ack = main.locator('.msg.ack');
  await expect(ack).toContainText('Runner');
  await expect(ack).toContainText(SENTENCE);
  await page.screenshot({ path: test.info().outputPath('busy-ack-room.png') });
});
