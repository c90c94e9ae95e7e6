// Issue 37 (#874 Step 1, #903): the Bot form picks a harness tier, and the
// Usage screen groups the ledger's calls by the harness each turn ran under.
'use strict';

const { test, expect, open } = require('../fixtures');

async function chat(page, host, bot, text) {
  await open(page, host, `#/bot/${bot.id}`);
  // This Bot's chat, not the screen the page showed before it.
  await expect(page.getByRole('heading', { name: bot.name, exact: true })).toBeVisible();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  // The offline mock's answer (crates/flybot-agent/src/model/mock.rs).
  await expect(page.getByRole('main').getByText(new RegExp(`\\(mock model\\) I received: ${text}`))).toBeVisible();
}

test('the Bot form picks a tier and Usage groups calls per harness', async ({ page, host }) => {
  await host.api.state();
  const plain = await host.api.createBot('Plain');
  const light = await host.api.createBot('Light');

  await open(page, host, `#/bot/${light.id}/edit`);
  const tier = page.getByLabel('Harness');
  await expect(tier).toHaveValue('default');
  await tier.selectOption('lite');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL(new RegExp(`#/bot/${light.id}$`));
  // The chat has drawn, so the form read below is drawn anew from what was saved.
  await expect(page.getByRole('heading', { name: 'Light', exact: true })).toBeVisible();
  await page.goto(`${host.url}/#/bot/${light.id}/edit`);
  await expect(page.getByLabel('Harness')).toHaveValue('lite');

  await chat(page, host, plain, 'Hello plain');
  await chat(page, host, light, 'Hello light');

  await page.getByRole('navigation').first().getByRole('link', { name: 'Usage' }).click();
  const table = page.getByRole('table', { name: 'Per harness' });
  await expect(table.getByRole('row', { name: /Default/ })).toBeVisible();
  await expect(table.getByRole('row', { name: /Lite/ })).toBeVisible();
  await expect(table.getByRole('row', { name: /Heavy/ })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('harness-usage.png'), fullPage: true });
});
