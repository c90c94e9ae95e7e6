// #553, #353: work a room member hands a Bot with message_bot runs in a
// hidden turn of that Bot's own chat. While it runs, the room shows the Bot
// working on what the room handed over (work.bots[id].fromRoomId) and the
// Bot's chat says whose work it is; when it ends it is no ended turn, so a
// page in the background shows no "Dev answered" notification for it, while
// Dev's answer to the owner's own line does notify.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startMockModel } = require('../harness');

let model;
let host;
test.beforeEach(async () => {
  model = await startMockModel([
    { when: { systemContains: '## You are Lead\n', userContains: 'Parser built', step: 0 }, reply: { text: 'Thanks, Dev.' } },
    {
      when: { systemContains: '## You are Lead\n', userContains: 'hand it over', step: 0 },
      reply: { toolCalls: [{ name: 'message_bot', arguments: { to: 'Dev', text: 'build the parser' } }] },
    },
    {
      when: { systemContains: '## You are Lead\n', userContains: 'start the build', step: 0 },
      reply: { toolCalls: [{ name: 'message_bot', arguments: { to: 'Dev', text: 'run the build' } }] },
    },
    { when: { systemContains: '## You are Dev\n', userContains: 'build the parser', step: 0 }, reply: { text: 'Parser built.' } },
    {
      when: { systemContains: '## You are Dev\n', userContains: 'run the build', step: 0 },
      reply: { toolCalls: [{ name: 'run_command', arguments: { argv: ['echo', 'build'] } }] },
    },
    { when: { systemContains: '## You are Dev\n', userContains: 'say hi', step: 0 }, reply: { text: 'Hi there.' } },
    { when: { afterTool: '*' }, reply: { text: '[PASS]' } },
    { reply: { text: '[PASS]' } },
  ]);
  host = await startHost({ models: { scripted: model.baseUrl } });
});
test.afterEach(async () => {
  await host.stop();
  await model.stop();
});

/** Lead in the room Ship, Dev outside it (reached with message_bot). */
async function team() {
  await host.api.state();
  const lead = await host.api.createBot('Lead', { model: 'scripted' });
  const dev = await host.api.createBot('Dev', { model: 'scripted' });
  const { room } = await host.api.call('create-room', { name: 'Ship', members: [lead.id], admin: lead.id });
  return { lead, dev, room };
}

test('#553 a hidden turn of handed-out work shows no "answered" notification; an own-chat answer does', async ({ page }) => {
  // Test double of the browser's notifications: the page is in the
  // background and allowed to notify; each notification's title is kept.
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
  // The page counts only turns that end after it has read the ended ones
  // once: it is open before the team is made, and has read the new room.
  await host.api.state();
  await open(page, host);
  const { dev, room } = await team();
  await page.getByRole('navigation').first().getByRole('link', { name: 'Ship' }).click();
  await expect(page.getByRole('heading', { name: 'Ship', level: 1 })).toBeVisible();
  const notes = () => page.evaluate(() => window.testNotifications);
  await host.api.call('send', { roomId: room.id, text: '@Lead hand it over' });
  const lines = page.getByRole('log', { name: 'Room lines' });
  await expect(lines.getByText('@Lead Parser built.')).toBeVisible();
  await expect(lines.getByText('Thanks, Dev.')).toBeVisible();
  // Lead's turn that thanked Dev ended after Dev's: once it notified, the
  // page has read every ended turn of this exchange.
  await expect.poll(async () => (await notes()).filter((t) => t === 'Lead answered').length).toBeGreaterThanOrEqual(2);
  expect(await notes()).not.toContain('Dev answered');

  await host.api.call('send', { botId: dev.id, text: 'say hi' });
  await expect.poll(notes).toContain('Dev answered');
});

test('#553 the room shows the Bot working on what it handed over, and so does the Bot\'s chat', async ({ page }) => {
  const { dev, room } = await team();
  await open(page, host, `#/room/${room.id}`);
  await host.api.call('send', { roomId: room.id, text: '@Lead start the build' });
  // Dev's hidden turn waits on the owner's approval of its command.
  await expect(page.getByRole('status').filter({ hasText: 'Dev is working on what this room handed over.' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('handed-room.png') });
  await page.goto(`${host.url}/#/bot/${dev.id}`);
  await expect(page.getByText('Working on what the room Ship handed over: echo build')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('handed-chat.png') });
});
