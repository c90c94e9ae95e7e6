// Issue 12, "Tests in a real browser": "a lost connection resumed without a
// missing line". The page talks to the host through a proxy that cuts the
// line (every open connection dropped, new ones held); lines are written
// into the room meanwhile; the line comes back, the page reconnects on its
// own (EventSource resends its last event id) and every line is on screen,
// once.
'use strict';

const { test, expect } = require('../fixtures');
const { startHost, startScriptedModel, startCutProxy } = require('../harness');

let model;
let host;
let proxy;
test.beforeEach(async () => {
  model = await startScriptedModel();
  // The Bot passes on every line, so the room holds only the test's lines.
  model.rule(() => true, { text: '[PASS]' });
  host = await startHost({ models: { scripted: model.baseUrl } });
  proxy = await startCutProxy(host.url);
});
test.afterEach(async () => {
  await proxy.stop();
  await host.stop();
  await model.stop();
});

test('a lost connection resumed without a missing line', async ({ page }) => {
  await host.api.state();
  const bot = await host.api.createBot('Quiet', { model: 'scripted' });
  const room = await host.api.createRoom('Notes', [bot.id]);
  const streams = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/api/bot/live')) streams.push(request);
  });
  await page.goto(`${proxy.url}/?token=${host.token}#/room/${room.id}`);
  const nav = page.getByRole('navigation').first();
  const log = page.getByRole('log', { name: 'Room lines' });
  await expect(nav.getByText('Live', { exact: true })).toBeVisible();
  await host.api.send({ roomId: room.id }, 'line 1 before the cut');
  await expect(log.getByText('line 1 before the cut')).toBeVisible();
  expect(streams).toHaveLength(1);

  proxy.cut();
  await expect(nav.getByText(/Reconnecting/)).toBeVisible();
  for (let n = 2; n <= 6; n += 1) {
    await host.api.send({ roomId: room.id }, `line ${n} while cut off`);
  }
  const again = page.waitForRequest((request) => request.url().endsWith('/api/bot/live'));
  proxy.resume();
  const reconnect = await again;
  // The browser asked to resume from the last event it saw.
  expect((await reconnect.allHeaders())['last-event-id'] || '').toMatch(/\S/);
  await expect(nav.getByText('Live', { exact: true })).toBeVisible();
  for (let n = 7; n <= 9; n += 1) {
    await host.api.send({ roomId: room.id }, `line ${n} after the cut`);
  }
  await expect(log.getByText('line 9 after the cut')).toBeVisible();
  for (let n = 1; n <= 9; n += 1) {
    await expect(log.getByText(new RegExp(`^line ${n} `))).toHaveCount(1);
  }
});

// Issue 31: "the host cannot be reached" goes by itself once the host is back.
test('the cannot-be-reached note clears itself on reconnect', async ({ page }) => {
  await host.api.state();
  const bot = await host.api.createBot('Quiet', { model: 'scripted' });
  await page.goto(`${proxy.url}/?token=${host.token}#/bot/${bot.id}`);
  const nav = page.getByRole('navigation').first();
  await expect(nav.getByText('Live', { exact: true })).toBeVisible();
  const main = page.getByRole('main');
  const box = main.getByRole('textbox', { name: 'Message' });
  await expect(box).toBeVisible();

  proxy.cut();
  await expect(nav.getByText(/Reconnecting/)).toBeVisible();
  await page.route('**/api/bot/send', (route) => route.abort());
  await box.fill('are you there?');
  await box.press('Enter');
  const note = main.getByRole('alert').filter({ hasText: 'The host cannot be reached' });
  await expect(note).toBeVisible();
  await expect(box).toHaveValue('are you there?');

  await page.unroute('**/api/bot/send');
  proxy.resume();
  await expect(nav.getByText('Live', { exact: true })).toBeVisible();
  await expect(note).toHaveCount(0);
  // The line is still in the box, to send again.
  await expect(box).toHaveValue('are you there?');
});
