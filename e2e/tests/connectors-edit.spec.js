// Issue 31, "Connectors and secrets on the page": the owner adds an MCP
// server by its command (the real server-everything), chooses which Bots
// use it and removes it; saves a key and deletes it. The host's refusals
// show beside the form, and a key's value is never shown back.
'use strict';

const path = require('node:path');
const { test, expect, open } = require('../fixtures');
const { REPO } = require('../harness');

const EVERYTHING = path.join(REPO, '.tools', 'mcp', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const VALUE = 'page-typed-key-value-5d2a';

test('the owner adds an MCP server by command, switches it off for one Bot, and removes it', async ({ page, host }) => {
  test.setTimeout(60_000);
  await host.api.state();
  const scout = await host.api.createBot('Scout');
  await open(page, host, '#/settings');
  const section = page.getByRole('region', { name: 'Connectors and keys' });
  const form = section.getByRole('form', { name: 'Add an MCP server' });

  // A name the host refuses: its sentence shows, nothing is added.
  await form.getByLabel('Name').fill('Not A Name!');
  await form.getByLabel('Command').fill(`node ${EVERYTHING} stdio`);
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(form.getByRole('alert')).not.toBeEmpty();
  expect((await host.api.state()).connectors || []).toEqual([]);

  await form.getByLabel('Name').fill('everything');
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(form.getByRole('status')).toContainText(/Added everything: \d+ tools/, { timeout: 30_000 });
  await expect(form.getByRole('alert')).toBeEmpty();
  const row = section.locator('.row.connector', { hasText: 'everything' });
  await expect(row.getByText('ready', { exact: true })).toBeVisible();
  await expect(row.getByText(/MCP server · \d+ tools/)).toBeVisible();

  await row.getByText(/Used by 2 of 2 Bots/).click();
  await row.getByRole('checkbox', { name: 'Scout' }).uncheck();
  await expect(row.getByText(/Used by 1 of 2 Bots/)).toBeVisible();
  const record = (await host.api.state()).bots.find((b) => b.id === scout.id);
  expect(record.connectors).toEqual({ everything: false });
  await section.screenshot({ path: test.info().outputPath('connector-added.png') });

  await row.getByRole('button', { name: 'Remove everything' }).click();
  await expect(section.locator('.row.connector')).toHaveCount(0);
  await expect(section.getByText('No connector yet.')).toBeVisible();
  expect((await host.api.state()).connectors || []).toEqual([]);
});

test('the owner saves a key for one Bot and deletes it; its value is never shown back', async ({ page, host }) => {
  await host.api.state();
  await host.api.createBot('Scout');
  await open(page, host, '#/settings');
  const section = page.getByRole('region', { name: 'Connectors and keys' });
  const form = section.getByRole('form', { name: 'Save a key' });

  await form.getByLabel('Name').fill('DEPLOY_KEY');
  await form.getByLabel('Value').fill(VALUE);
  await form.getByRole('checkbox', { name: 'All of my Bots' }).uncheck();
  await form.getByRole('checkbox', { name: 'Scout' }).check();
  await form.getByRole('button', { name: 'Save key' }).click();
  await expect(form.getByRole('status')).toHaveText('Saved DEPLOY_KEY.');
  await expect(form.getByLabel('Value')).toHaveValue('');
  await expect(section.getByText('DEPLOY_KEY', { exact: true })).toBeVisible();
  await expect(section.getByText(/for Scout ·/)).toBeVisible();
  await expect(page.locator('body')).not.toContainText(VALUE);
  const inputs = await page.locator('input').evaluateAll((all) => all.map((i) => i.value));
  expect(inputs).not.toContain(VALUE);

  // A value the host refuses (empty) says why; the saved key is unchanged.
  await form.getByLabel('Name').fill('DEPLOY_KEY');
  await form.getByRole('button', { name: 'Save key' }).click();
  await expect(form.getByRole('alert')).not.toBeEmpty();

  await section.getByRole('button', { name: 'Delete DEPLOY_KEY' }).click();
  await expect(section.getByText('No key saved yet.')).toBeVisible();
  expect((await host.api.call('secrets', {})).secrets).toEqual([]);
});
