// #469: each kind of browser notification is turned off and on by itself
// in Settings (`set-prefs {notify: {kind: bool}}`), and the page honours it:
// with "When a Bot answers" off, Dev's answer shows no notification while
// its approval still does; with "When something waits for my answer" off,
// a new approval shows none while an answer does.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startMockModel } = require('../harness');

let model;
let host;
test.beforeEach(async () => {
  model = await startMockModel([
    { when: { systemContains: '## You are Dev\n', userContains: 'say', step: 0 }, reply: { text: 'Hi there.' } },
    {
      when: { systemContains: '## You are Dev\n', userContains: 'run it', step: 0 },
      reply: { toolCalls: [{ name: 'run_command', arguments: { argv: ['echo', 'build'] } }] },
    },
    { when: { afterTool: '*' }, reply: { text: 'Done.' } },
    { reply: { text: 'Fine.' } },
  ]);
  host = await startHost({ models: { scripted: model.baseUrl } });
});
test.afterEach(async () => {
  await host.stop();
  await model.stop();
});

/** Test double of the browser's notifications: the page is in the background and allowed to notify; each title is kept. */
async function backgroundNotifications(page) {
  await page.addInitScript(() => {
    window.testNotifications = [];
    window.Notification = class {
      static permission = 'granted';
      static requestPermission() {
        return Promise.resolve('granted');
      }
      constructor(title) {
        window.testNotifications.push(title);
      }
    };
    Object.defineProperty(Document.prototype, 'hidden', { get: () => true, configurable: true });
  });
  return async (title) => (await page.evaluate(() => window.testNotifications)).filter((t) => t === title).length;
}

async function toggle(page, label) {
  await page.goto(`${host.url}/#/settings`);
  const box = page.getByRole('checkbox', { name: label });
  await box.click();
  await expect(page.locator('#pref-notify label', { hasText: label }).getByText('Saved.')).toBeVisible();
}

test('#469 each kind of notification is turned off and on by itself in Settings', async ({ page }) => {
  const count = await backgroundNotifications(page);
  await host.api.state();
  const dev = await host.api.createBot('Dev', { model: 'scripted' });
  await open(page, host, '#/settings');
  await expect(page.getByRole('checkbox', { name: 'When a Bot answers' })).toBeChecked();

  await toggle(page, 'When a Bot answers');
  expect((await host.api.state()).prefs.notify).toEqual({ finished: false });
  await page.goto(`${host.url}/#/bot/${dev.id}`);
  await host.api.call('send', { botId: dev.id, text: 'say hi' });
  await expect(page.getByText('Hi there.')).toBeVisible();
  await host.api.call('send', { botId: dev.id, text: 'run it' });
  await expect.poll(() => count('Dev waits for your answer')).toBe(1);
  expect(await count('Dev answered')).toBe(0);
  await page.screenshot({ path: test.info().outputPath('notify-approval.png') });

  const { approvals } = await host.api.call('approvals', {});
  await host.api.call('approval-answer', { id: approvals[0].id, answer: 'rejected' });
  await toggle(page, 'When a Bot answers');
  await toggle(page, 'When something waits for my answer');
  expect((await host.api.state()).prefs.notify).toEqual({ approval: false });
  await page.screenshot({ path: test.info().outputPath('notify-settings.png'), fullPage: true });
  await page.goto(`${host.url}/#/bot/${dev.id}`);
  await host.api.call('send', { botId: dev.id, text: 'say bye' });
  await expect.poll(() => count('Dev answered')).toBe(1);
  await host.api.call('send', { botId: dev.id, text: 'run it again' });
  await expect(page.getByText('Dev asks to use run_command')).toBeVisible();
  expect(await count('Dev waits for your answer')).toBe(1);
});
