// Issue 12, "Tests in a real browser": "create a Bot, send it a line, watch
// the mock's answer stream in".
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startScriptedModel, lastOf } = require('../harness');

test('create a Bot, send it a line, watch the mock answer', async ({ page, host }) => {
  await open(page, host);
  // Create the Bot on the page's own form.
  await page.getByRole('navigation').first().getByRole('link', { name: 'New Bot' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Ada');
  await page.getByRole('button', { name: 'Create Bot' }).click();
  const nav = page.getByRole('navigation').first();
  await expect(nav.getByRole('link', { name: /Ada/ })).toBeVisible();
  await nav.getByRole('link', { name: /Ada/ }).click();

  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Hello from the page');
  await box.press('Enter');
  await expect(page.getByRole('main').getByText('Hello from the page').first()).toBeVisible();
  // The offline mock's answer (crates/flybot-agent/src/model/mock.rs).
  await expect(
    page.getByRole('main').getByText(/\(mock model\) I received: Hello from the page/),
  ).toBeVisible();
});

test.describe('a streamed answer', () => {
  let model;
  let host;
  test.beforeEach(async () => {
    model = await startScriptedModel();
    model.rule((request) => lastOf(request, 'user').includes('tell a story'), 'hold');
    host = await startHost({ models: { scripted: model.baseUrl } });
  });
  test.afterEach(async () => {
    await host.stop();
    await model.stop();
  });

  test('watch the answer stream in as it is written, piece by piece', async ({ page }) => {
    await host.api.state();
    const bot = await host.api.createBot('Teller', { model: 'scripted' });
    await open(page, host, `#/bot/${bot.id}`);
    const main = page.getByRole('main');
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Please tell a story');
    await box.press('Enter');

    const answer = await model.held();
    answer.send('Once upon a time');
    // The first piece is on screen while the turn is still running.
    await expect(main.getByText('Once upon a time', { exact: false })).toBeVisible();
    await expect(page.getByRole('button', { name: /^Stop/ })).toBeVisible();
    answer.send(', a small Bot');
    await expect(main.getByText('Once upon a time, a small Bot', { exact: false })).toBeVisible();
    answer.send(' shipped a page.');
    answer.end();
    await expect(
      main.getByText('Once upon a time, a small Bot shipped a page.', { exact: false }),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: /^Stop/ })).toBeHidden();
  });

  test('Stop cancels the running answer', async ({ page }) => {
    await host.api.state();
    const bot = await host.api.createBot('Teller', { model: 'scripted' });
    await open(page, host, `#/bot/${bot.id}`);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Please tell a story that never ends');
    await box.press('Enter');
    const answer = await model.held();
    answer.send('It was a dark and');
    await expect(page.getByRole('main').getByText('It was a dark and')).toBeVisible();
    await page.getByRole('button', { name: /^Stop/ }).click();
    // The host cancels the turn: it hangs up on the model.
    await answer.closed;
    await expect(page.getByRole('button', { name: /^Stop/ })).toBeHidden();
  });
});
