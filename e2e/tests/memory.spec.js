// Issue 16, "The owner reads, edits and deletes a Bot's memory through the
// channel (and on the page)": the Bot's Memory screen adds, edits and
// deletes entries and saves the pinned block; a secret-shaped entry is
// refused beside its field and nothing is written.
'use strict';

const { test, expect, open } = require('../fixtures');
const { expectAccessible } = require('../a11y');

test('the owner adds, edits and deletes a Bot\'s memory on the page', async ({ page, host }) => {
  await host.api.state();
  const bot = await host.api.createBot('Keeper');
  await host.api.call('memory-append', { botId: bot.id, text: 'Deploys go out on Fridays.', topic: 'deploy' });
  await open(page, host, `#/bot/${bot.id}`);
  await page.getByRole('link', { name: 'Memory' }).click();
  await expect(page.getByRole('heading', { name: 'Memory of Keeper' })).toBeVisible();
  await expect(page.getByLabel('Entry on deploy')).toHaveValue('Deploys go out on Fridays.');

  await page.getByLabel('Topic').fill('people');
  await page.getByLabel('New entry').fill('the token=abc123def456');
  await page.getByRole('button', { name: 'Add entry' }).click();
  await expect(page.locator('#mem-text-error')).toContainText('never stores secrets');
  expect((await host.api.call('memory', { botId: bot.id })).total).toBe(1);

  await page.getByLabel('New entry').fill('Ada prefers short answers.');
  await page.getByRole('button', { name: 'Add entry' }).click();
  await expect(page.getByLabel('Entry on people')).toHaveValue('Ada prefers short answers.');

  await page.getByLabel('Entry on deploy').fill('Deploys go out on Thursdays.');
  await page.getByRole('button', { name: 'Save entry' }).last().click();
  // The screen is drawn again after a save; the typed value shows before
  // that, so wait for the new drawing (its button is enabled again) before
  // typing elsewhere, as a person would see the page settle.
  await expect(page.getByRole('button', { name: 'Save entry' }).last()).toBeEnabled();
  await expect(page.getByLabel('Entry on deploy')).toHaveValue('Deploys go out on Thursdays.');

  await page.getByLabel('Pinned memory').fill('The user is Ada.');
  await page.getByRole('button', { name: 'Save pinned' }).click();
  await expect(page.getByRole('button', { name: 'Save pinned' })).toBeEnabled();
  await expect(page.getByLabel('Pinned memory')).toHaveValue('The user is Ada.');
  await expectAccessible(page);
  await page.screenshot({ path: 'test-results/memory.png', fullPage: true });

  await page.getByRole('button', { name: 'Delete entry' }).first().click();
  await expect(page.getByLabel('Entry on people')).toHaveCount(0);
  const memory = await host.api.call('memory', { botId: bot.id });
  expect(memory.entries.map((e) => e.text)).toEqual(['Deploys go out on Thursdays.']);
  expect(memory.pinned).toBe('The user is Ada.');
});
