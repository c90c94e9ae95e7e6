// Issue 31, "Connectors and secrets on the page": the owner adds an MCP
// server by its program and arguments, one per line (the real
// server-everything), with a plain variable, a variable from a saved key
// and a tool that asks first; chooses which Bots use it and removes it
// after a confirmation that says what goes; saves a key and deletes it the
// same way. The host's refusals show beside the form, and a key's value is
// never shown back.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { test, expect, open } = require('../fixtures');
const { REPO } = require('../harness');

const EVERYTHING = path.join(REPO, '.tools', 'mcp', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const VALUE = 'page-typed-key-value-5d2a';

test('the owner adds an MCP server by program, arguments, variables and approvals, switches it off for one Bot, and removes it after saying what goes', async ({ page, host }) => {
  test.setTimeout(60_000);
  await host.api.state();
  const scout = await host.api.createBot('Scout');
  await host.api.call('secret-set', { name: 'SERVICE_KEY', value: VALUE, scope: 'all' });
  await open(page, host, '#/settings');
  const section = page.getByRole('region', { name: 'Connectors and keys' });
  const form = section.getByRole('form', { name: 'Add an MCP server' });

  // A name the host refuses: its sentence shows, nothing is added.
  await form.getByLabel('Name').fill('Not A Name!');
  await form.getByLabel('Program', { exact: true }).fill('node');
  // One argument per line: nothing is split on spaces.
  await form.getByLabel('Arguments').fill(`${EVERYTHING}\nstdio`);
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(form.getByRole('alert')).not.toBeEmpty();
  expect((await host.api.state()).connectors || []).toEqual([]);

  // A variable line the page cannot read says so before anything is sent.
  await form.getByLabel('Name').fill('everything');
  await form.getByLabel('Variables', { exact: true }).fill('GREETING=hello there\nNOT A VARIABLE');
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(form.getByRole('alert')).toContainText('"NOT A VARIABLE" is not NAME=value');
  expect((await host.api.state()).connectors || []).toEqual([]);

  await form.getByLabel('Variables', { exact: true }).fill('GREETING=hello there');
  await form.getByRole('button', { name: 'Add a variable from a saved key' }).click();
  await form.getByLabel('Variable 1 name').fill('SERVICE_TOKEN');
  await expect(form.getByLabel('Variable 1 saved key')).toHaveValue('SERVICE_KEY');
  await form.getByLabel('Tools that ask you first').fill('echo');
  await section.screenshot({ path: test.info().outputPath('connector-form.png') });
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(form.getByRole('status')).toContainText(/Added everything: \d+ tools/, { timeout: 30_000 });
  await expect(form.getByRole('alert')).toBeEmpty();
  const row = section.locator('.row.connector', { hasText: 'everything' });
  const [added] = (await host.api.call('connectors', {})).connectors;
  expect(added.command).toEqual(['node', EVERYTHING, 'stdio']);
  // Kept as asked: the plain value, the key by its name (never its value), the tool that asks.
  const saved = JSON.parse(fs.readFileSync(path.join(host.home, 'connectors.json'), 'utf8'));
  expect(saved).toEqual([{ id: 'everything', command: ['node', EVERYTHING, 'stdio'], env: { GREETING: 'hello there' }, secretEnv: { SERVICE_TOKEN: 'SERVICE_KEY' }, approval: ['echo'] }]);
  await expect(page.locator('body')).not.toContainText(VALUE);
  await expect(row.getByText('ready', { exact: true })).toBeVisible();
  await expect(row.getByText(/MCP server · \d+ tools/)).toBeVisible();

  await row.getByText(/Used by 2 of 2 Bots/).click();
  await row.getByRole('checkbox', { name: 'Scout' }).uncheck();
  await expect(row.getByText(/Used by 1 of 2 Bots/)).toBeVisible();
  const record = (await host.api.state()).bots.find((b) => b.id === scout.id);
  expect(record.connectors).toEqual({ everything: false });
  await section.screenshot({ path: test.info().outputPath('connector-added.png') });

  // Removing asks first and says what goes.
  await row.getByRole('button', { name: 'Remove everything' }).click();
  const ask = row.getByRole('group', { name: 'Remove everything?' });
  await expect(ask).toContainText(/Remove everything\? Its \d+ tools leave 1 Bot that uses it, and its server stops; saved keys stay\./);
  await expect(ask.getByRole('button', { name: 'Yes, remove' })).toBeFocused();
  await ask.getByRole('button', { name: 'Keep it' }).click();
  await expect(row.getByRole('button', { name: 'Remove everything' })).toBeFocused();
  expect((await host.api.state()).connectors).toHaveLength(1);
  await row.getByRole('button', { name: 'Remove everything' }).click();
  await ask.getByRole('button', { name: 'Yes, remove' }).click();
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

  // Deleting asks first and says what goes.
  await section.getByRole('button', { name: 'Delete DEPLOY_KEY' }).click();
  const ask = section.getByRole('group', { name: 'Delete DEPLOY_KEY?' });
  await expect(ask).toContainText('Delete DEPLOY_KEY? Its value is gone for good: Scout no longer gets it, and a connector that reads it fails at its next start.');
  await ask.getByRole('button', { name: 'Keep it' }).click();
  expect((await host.api.call('secrets', {})).secrets).toHaveLength(1);
  await section.getByRole('button', { name: 'Delete DEPLOY_KEY' }).click();
  await ask.getByRole('button', { name: 'Yes, delete' }).click();
  await expect(section.getByText('No key saved yet.')).toBeVisible();
  expect((await host.api.call('secrets', {})).secrets).toEqual([]);
});
