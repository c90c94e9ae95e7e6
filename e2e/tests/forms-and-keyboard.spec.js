// Issue 12, "What a person can do on it": refusals "shown as the envelope's
// sentence beside the field it names", the composer's keys (Enter sends,
// Shift+Enter a new line) by keyboard alone, an approval answered in place
// in the Inbox, and the Bot form's model "from the configured list".
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startMockModel } = require('../harness');

test('a refusal is the host sentence beside the field it names', async ({ page, host }) => {
  await open(page, host, '#/bots/new');
  const name = page.getByLabel('Name', { exact: true });
  await name.fill('Chief');
  await page.getByRole('button', { name: 'Create Bot' }).click();
  await expect(name).toHaveAccessibleDescription(/A Bot named Chief already exists; pick another name\./);
  await expect(page.getByText('A Bot named Chief already exists; pick another name.')).toBeVisible();
});

test('by keyboard alone: Shift+Enter starts a new line, Enter sends', async ({ page, host }) => {
  await host.api.state();
  const bot = await host.api.createBot('Ada');
  await open(page, host, `#/bot/${bot.id}`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.focus();
  await page.keyboard.type('first line');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('second line');
  await expect(box).toHaveValue('first line\nsecond line');
  await page.keyboard.press('Enter');
  await expect(box).toHaveValue('');
  await expect(page.getByRole('main').getByText(/\(mock model\) I received: first line\s+second line/)).toBeVisible();
});

test.describe('the Inbox', () => {
  let model;
  let host;
  test.beforeEach(async () => {
    model = await startMockModel([
      {
        when: { userContains: 'clean up', step: 0 },
        reply: { toolCalls: [{ name: 'run_command', arguments: { argv: ['rm', '-rf', 'build'] } }] },
      },
      { when: { afterTool: 'run_command' }, reply: { text: 'Understood, I left the build folder alone.' } },
    ]);
    host = await startHost({ models: { scripted: model.baseUrl } });
  });
  test.afterEach(async () => {
    await host.stop();
    await model.stop();
  });

  test('an approval answered in place in the Inbox', async ({ page }) => {
    await host.api.state();
    const bot = await host.api.createBot('Janitor', { model: 'scripted' });
    await host.api.send({ botId: bot.id }, 'Please clean up');
    await open(page, host, '#/inbox');
    const card = page.getByRole('main').getByRole('group', { name: /Janitor asks to use run_command/ });
    await expect(card).toBeVisible();
    await card.getByRole('button', { name: 'Reject' }).click();
    await expect(card).toBeHidden();
    await page.getByRole('navigation').first().getByRole('link', { name: 'Janitor' }).click();
    await expect(page.getByRole('main').getByText('Understood, I left the build folder alone.')).toBeVisible();
  });

  // The Bot form offers exactly the configured models (state.model.names).
  test('the Bot form offers every configured model', async ({ page }) => {
    const names = (await host.api.state()).model.names;
    await open(page, host, '#/bots/new');
    const model = page.getByLabel('Model');
    await expect(model.locator('option', { hasText: 'scripted' })).toHaveCount(1);
    await expect(model.locator('option')).toHaveCount(names.length);
    await model.selectOption('scripted');
    await page.getByLabel('Name', { exact: true }).fill('Picked');
    await page.getByRole('button', { name: 'Create Bot' }).click();
    await expect(page.getByRole('main').getByText('Model: scripted')).toBeVisible();
  });
});

// Issue 13: a Bot's thinking level is set on the form and kept in its record.
test('the Bot form sets how hard the model thinks', async ({ page, host }) => {
  await open(page, host, '#/bots/new');
  await page.getByLabel('Name', { exact: true }).fill('Deep');
  await page.getByLabel('Thinking').selectOption('high');
  await page.getByRole('button', { name: 'Create Bot' }).click();
  await expect(page.getByRole('main').getByText('Model: mock')).toBeVisible();
  const deep = (await host.api.state()).bots.find((b) => b.name === 'Deep');
  expect(deep.thinking).toBe('high');
  await open(page, host, `#/bot/${deep.id}/edit`);
  await expect(page.getByLabel('Thinking')).toHaveValue('high');
  await page.getByLabel('Thinking').selectOption('least');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('main').getByText('Model: mock')).toBeVisible();
  expect((await host.api.state()).bots.find((b) => b.name === 'Deep').thinking).toBe('least');
});
