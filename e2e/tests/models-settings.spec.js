// Issue 31, "Models from Settings": the owner adds an OpenAI-compatible
// provider and its model on the page, with its key kept as a secret; Test
// connection shows the model's own reply, the mock says it is the mock, a
// down endpoint gives its sentence; a Bot runs on the new model at once,
// with no restart, and config.toml holds the provider (never the key).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { test, expect, open } = require('../fixtures');
const { startMockModel } = require('../harness');

let model;
test.beforeEach(async () => {
  model = await startMockModel([{ reply: { text: 'Hello from the local model.' } }]);
});
test.afterEach(async () => {
  await model.stop();
});

test('a provider added in Settings serves a Bot at once and is written to config.toml', async ({ page, host }) => {
  await host.api.state();
  await open(page, host, '#/settings');
  const models = page.getByRole('region', { name: 'Models' });

  // The mock says it is the mock, not "answered in 0 ms".
  await models.getByRole('button', { name: 'Test connection for mock' }).click();
  await expect(models.getByText('This is the built-in mock model')).toBeVisible();

  await models.getByRole('button', { name: 'Add a provider' }).click();
  const form = models.getByRole('form', { name: 'Add a provider' });
  await form.getByLabel('Provider name').fill('local');
  await form.getByLabel('Base URL').fill(model.baseUrl);
  await form.getByLabel('API key').fill('sk-e2e-local-key');
  await form.getByLabel('Name Bots pick it by').fill('local-chat');
  await form.getByLabel('Model id at the provider').fill('qwen3');
  await form.getByLabel('Context window (tokens)').fill('32000');
  await form.getByLabel('Reads images').check();
  await form.getByRole('button', { name: 'Add provider' }).click();
  await expect(models.getByText('Added; Bots can pick its models now.')).toBeVisible();
  await expect(models.getByText('key saved')).toBeVisible();
  await expect(models.getByText(/local-chat \(qwen3, 32,000 tokens, images\)/)).toBeVisible();
  await models.screenshot({ path: test.info().outputPath('models-settings.png') });

  // Test connection: the model's own reply and how long it took.
  await models.getByRole('button', { name: 'Test connection for local-chat' }).click();
  await expect(models.getByText(/It answered “Hello from the local model\.” in \d+ ms\./)).toBeVisible();

  // Written back: the provider and the key's secret name, never the key.
  const file = fs.readFileSync(path.join(host.home, 'config.toml'), 'utf8');
  expect(file).toContain('[providers.local]');
  expect(file).toContain('apiKeySecret = "MODEL_LOCAL_KEY"');
  expect(file).toContain('[models.local-chat]');
  expect(file).not.toContain('sk-e2e-local-key');

  // A Bot on it answers from it, with no restart.
  const bot = await host.api.createBot('Local', { model: 'local-chat' });
  await open(page, host, `#/bot/${bot.id}`);
  const box = page.getByRole('textbox', { name: /Message/ });
  await box.fill('hi');
  await box.press('Enter');
  await expect(page.getByText('Hello from the local model.')).toBeVisible();
});

test('a down endpoint gets the sentence for its failure, and a removed provider is gone', async ({ page, host }) => {
  await host.api.state();
  // Nothing listens on port 9.
  await host.api.call('model-provider-set', {
    name: 'down',
    baseUrl: 'http://127.0.0.1:9/v1',
    models: [{ name: 'down-chat', model: 'm', contextWindow: 8000 }],
  });
  await open(page, host, '#/settings');
  const models = page.getByRole('region', { name: 'Models' });
  await models.getByRole('button', { name: 'Test connection for down-chat' }).click();
  await expect(models.getByText('The provider could not be reached at its base URL. Check the address and that the server is running.')).toBeVisible();
  await expect(models.getByText(/TRANSPORT/)).toHaveCount(0);

  await models.getByRole('button', { name: 'Remove down' }).click();
  await models.getByRole('button', { name: 'Yes, remove' }).click();
  await expect(models.getByText('down removed.')).toBeVisible();
  await expect(models.getByRole('button', { name: 'Test connection for down-chat' })).toHaveCount(0);
});

test('a provider edited in Settings (base URL and model id) is applied at once, and the default model chosen there is what a new Bot gets', async ({ page, host }) => {
  const second = await startMockModel([{ reply: { text: 'Hello from the second server.' } }]);
  try {
    await host.api.state();
    await host.api.call('model-provider-set', {
      name: 'local',
      baseUrl: model.baseUrl,
      models: [{ name: 'local-chat', model: 'first', contextWindow: 8000 }],
    });
    await open(page, host, '#/settings');
    const models = page.getByRole('region', { name: 'Models' });

    // Edit: a new base URL and model id, saved and applied with no restart.
    await models.getByRole('button', { name: 'Edit local' }).click();
    const form = models.getByRole('form', { name: 'Edit local' });
    await form.getByLabel('Base URL').fill(second.baseUrl);
    await form.getByLabel('Model id at the provider').fill('second');
    await form.getByRole('button', { name: 'Save provider' }).click();
    await expect(models.getByText('Saved; the next turn uses it.')).toBeVisible();
    await expect(models.getByText(/local-chat \(second, 8,000 tokens\)/)).toBeVisible();
    await expect(models.getByText(second.baseUrl, { exact: false })).toBeVisible();
    await models.getByRole('button', { name: 'Test connection for local-chat' }).click();
    await expect(models.getByText(/It answered “Hello from the second server\.” in \d+ ms\./)).toBeVisible();
    let file = fs.readFileSync(path.join(host.home, 'config.toml'), 'utf8');
    expect(file).toContain(`baseUrl = "${second.baseUrl}"`);
    expect(file).toContain('model = "second"');

    // The default model: chosen here, applied at once, written back.
    const picker = models.getByRole('form', { name: 'Default model' });
    await expect(picker.getByLabel('Default model')).toHaveValue('mock');
    await picker.getByLabel('Default model').selectOption('local-chat');
    await picker.getByRole('button', { name: 'Save default' }).click();
    await expect(picker.getByText('local-chat is the default now; new Bots get it.')).toBeVisible();
    await expect(models.getByText('local-chat (default)')).toBeVisible();
    await models.screenshot({ path: test.info().outputPath('models-default.png') });
    file = fs.readFileSync(path.join(host.home, 'config.toml'), 'utf8');
    expect(file).toContain('defaultModel = "local-chat"');
    const bot = await host.api.createBot('Fresh');
    expect(bot.model).toBe('local-chat');
  } finally {
    await second.stop();
  }
});
