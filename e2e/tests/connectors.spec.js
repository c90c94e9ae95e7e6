// Issue 17: the Settings screen lists the host's connectors and saved keys
// read-only, from the state view: each connector's name, kind and status
// (an error said plainly), each key's name and scope, never a value.
'use strict';

const { test, expect, open } = require('../fixtures');

const VALUE = 'page-test-key-value-8e1f';

test('Settings lists the connectors and the saved keys by name, never a value', async ({ page, host }) => {
  await host.api.state();
  const scout = await host.api.createBot('Scout');
  await host.api.call('secret-set', { name: 'DEPLOY_KEY', value: VALUE });
  await host.api.call('secret-set', { name: 'SCOUT_ONLY', value: 'scout-only-value-2b7c', scope: [scout.id] });
  // A server whose command does not exist reads as error, with why.
  await host.api.call('connector-connect', { id: 'broken', command: ['/no/such/server'] });

  await open(page, host, '#/settings');
  const section = page.getByRole('region', { name: 'Connectors and keys' });
  await expect(section).toBeVisible();
  await expect(section.getByText('broken', { exact: true })).toBeVisible();
  await expect(section.getByText('error', { exact: true })).toBeVisible();
  await expect(section.getByText(/The command \/no\/such\/server could not start/)).toBeVisible();
  await expect(section.getByText('DEPLOY_KEY')).toBeVisible();
  await expect(section.getByText(/for all of your Bots/)).toBeVisible();
  await expect(section.getByText('SCOUT_ONLY')).toBeVisible();
  await expect(section.getByText(/for Scout ·/)).toBeVisible();
  await expect(page.locator('body')).not.toContainText(VALUE);
  await section.screenshot({ path: test.info().outputPath('connectors.png') });
});

// Issue 39: on a host with a second member, the owner still sees her
// connectors, is told why she cannot add or change them, and retries one
// that failed to start; the other member's view carries none of them.
test('On a shared host the owner sees a failed connector and retries it', async ({ page, host }) => {
  const fs = require('fs');
  const os = require('os');
  const path = require('path');
  const server = path.resolve(__dirname, '../../.tools/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  test.skip(!fs.existsSync(server) && !process.env.FLYBOT_REQUIRE_MCP, 'server-everything is not installed (scripts/test installs it)');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'flybot-e2e-mcp-'));
  const script = path.join(folder, 'everything.sh');
  // The script is missing at first: the connector is saved and reads as error.
  const added = await host.api.call('connector-connect', { id: 'everything', command: [script, server] });
  expect(added.connector.status).toBe('error');
  const bo = await host.api.redeem(await host.api.invite('Bo'), 'Bo');
  expect((await bo.state()).connectors).toEqual([]);

  await open(page, host, '#/settings');
  const section = page.getByRole('region', { name: 'Connectors and keys' });
  await expect(section.getByText(/has more than one member: connectors and keys stay as you set them up/)).toBeVisible();
  await expect(section.getByText(/The command .*everything\.sh could not start/)).toBeVisible();
  fs.writeFileSync(script, '#!/bin/sh\nexec node "$1" stdio\n', { mode: 0o755 });
  await section.getByRole('button', { name: 'Retry everything' }).click();
  await expect(section.getByText('ready', { exact: true })).toBeVisible();
  await expect(section.getByText(/MCP server · \d+ tools/)).toBeVisible();
  await section.screenshot({ path: test.info().outputPath('shared-connectors.png') });
  fs.rmSync(folder, { recursive: true, force: true });
});
