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
