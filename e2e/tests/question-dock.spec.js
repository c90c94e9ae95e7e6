// #550, #553: a question a Bot asks about work a room member handed it
// waits in that room's question dock; the owner answers it there, the
// dock clears, the room shows a quiet notice of the answer and the Bot's
// reply comes back into the room; or the owner dismisses it.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startMockModel } = require('../harness');

let model;
let host;
test.beforeEach(async () => {
  model = await startMockModel([
    { when: { systemContains: '## You are Lead\n', userContains: 'Using SQLite', step: 0 }, reply: { text: 'Good.' } },
    {
      when: { systemContains: '## You are Lead\n', userContains: 'hand it over', step: 0 },
      reply: { toolCalls: [{ name: 'message_bot', arguments: { to: 'Dev', text: 'build the parser' } }] },
    },
    { when: { systemContains: '## You are Dev\n', userContains: '[Answer from the group Ship]', step: 0 }, reply: { text: 'Using SQLite.' } },
    {
      when: { systemContains: '## You are Dev\n', userContains: 'build the parser', step: 0 },
      reply: { toolCalls: [{ name: 'ask_user', arguments: { question: 'Postgres or SQLite?' } }] },
    },
    { when: { afterTool: '*' }, reply: { text: '[PASS]' } },
    { reply: { text: '[PASS]' } },
  ]);
  host = await startHost({ models: { scripted: model.baseUrl } });
});
test.afterEach(async () => {
  await host.stop();
  await model.stop();
});

test('a question on handed-out work is answered from the room dock', async ({ page }) => {
  await host.api.state();
  const lead = await host.api.createBot('Lead', { model: 'scripted' });
  await host.api.createBot('Dev', { model: 'scripted' });
  const { room } = await host.api.call('create-room', { name: 'Ship', members: [lead.id], admin: lead.id });
  await open(page, host, `#/room/${room.id}`);
  await host.api.call('send', { roomId: room.id, text: '@Lead hand it over' });

  const dock = page.getByRole('region', { name: 'Question from Dev' });
  await expect(dock).toBeVisible();
  await expect(dock.getByText('Postgres or SQLite?')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('dock.png') });
  await dock.getByRole('textbox', { name: 'Your answer' }).fill('SQLite');
  await dock.getByRole('button', { name: 'Answer' }).click();
  await expect(dock).toBeHidden();
  const lines = page.getByRole('log', { name: 'Room lines' });
  await expect(lines.getByText(/answered Dev: Postgres or SQLite\? → SQLite/)).toBeVisible();
  // Dev's reply to the answer comes back into the room, calling Lead.
  await expect(lines.getByText('@Lead Using SQLite.')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('dock-answered.png') });
});

test('a question on handed-out work is dismissed from the room dock', async ({ page }) => {
  await host.api.state();
  const lead = await host.api.createBot('Lead', { model: 'scripted' });
  await host.api.createBot('Dev', { model: 'scripted' });
  const { room } = await host.api.call('create-room', { name: 'Ship', members: [lead.id], admin: lead.id });
  await open(page, host, `#/room/${room.id}`);
  await host.api.call('send', { roomId: room.id, text: '@Lead hand it over' });
  const dock = page.getByRole('region', { name: 'Question from Dev' });
  await expect(dock).toBeVisible();
  await dock.getByRole('button', { name: 'Dismiss' }).click();
  await expect(dock).toBeHidden();
  await expect(page.getByRole('log', { name: 'Room lines' }).getByText("dismissed Dev's question: Postgres or SQLite?")).toBeVisible();
});
