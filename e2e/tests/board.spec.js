// Issue 12, "Tests in a real browser", and issue 31, "The board asks the
// host what a person may do": a card made on the page, worked by its Bot
// (the Bot's moves are the Bot's, never offered to the person), its result
// accepted by dragging it to Done, where it stays in sight.
'use strict';

const { test, expect, open } = require('../fixtures');

test('a card made on the page, worked by its Bot, is dragged to Done and stays there', async ({ page, host }) => {
  await host.api.state();
  await host.api.createBot('Writer');
  await open(page, host, '#/board');
  const main = page.getByRole('main');
  const column = (name) => main.getByRole('region', { name: new RegExp(`^${name}`) });

  // Created: the page's New task form.
  await main.getByRole('button', { name: 'New task' }).click();
  const form = page.getByRole('dialog', { name: 'New task' });
  await form.getByLabel('Bot').selectOption({ label: 'Writer' });
  await form.getByLabel('Title').fill('Write the launch note');
  await form.getByRole('button', { name: 'Create task' }).click();
  await expect(form).toBeHidden();
  await expect(column('Not started').getByRole('button', { name: 'Write the launch note', exact: true })).toBeVisible();

  // The person is not offered the Bot's moves: no Accept, no Start.
  await column('Not started').getByRole('button', { name: 'Write the launch note', exact: true }).click();
  const card = page.getByRole('dialog', { name: 'Write the launch note' });
  await expect(card.getByText('Writer picks this card up and starts it')).toBeVisible();
  await expect(card.getByRole('button', { name: 'Cancel task' })).toBeVisible();
  await expect(card.getByRole('button', { name: 'Accept', exact: true })).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Start', exact: true })).toHaveCount(0);
  await card.getByRole('button', { name: 'Close' }).click();

  // The Bot's moves (here through the channel, as the Bot's tool would).
  const { tasks } = await host.api.call('tasks', {});
  const id = tasks.find((t) => t.title === 'Write the launch note').id;
  await host.api.call('task-accept', { id });
  await host.api.call('task-start', { id });
  await host.api.call('task-return', { id, summary: 'The launch note is written.' });
  const tile = column('In progress').locator(`[data-task-id="${id}"]`);
  await expect(tile.getByRole('button', { name: /Accept result/ })).toBeVisible();

  // Dragged to Done: the result is accepted and the card stays in sight.
  await tile.dragTo(column('Done'));
  await expect(column('Done').getByRole('button', { name: 'Write the launch note', exact: true })).toBeVisible();
  await expect(column('In progress').getByRole('button', { name: 'Write the launch note', exact: true })).toHaveCount(0);
  const after = await host.api.call('tasks', { archive: true });
  expect(after.tasks.find((t) => t.id === id).status).toBe('accepted');
  await page.screenshot({ path: '/tmp/board-done.png' });
});

test('the keyboard accepts a result from the card tile, and priority and progress are edited in the card', async ({ page, host }) => {
  await host.api.state();
  const writer = await host.api.createBot('Writer');
  const ready = (await host.api.call('task-create', { botId: writer.id, title: 'Check the numbers' })).task;
  for (const step of ['task-accept', 'task-start']) await host.api.call(step, { id: ready.id });
  await host.api.call('task-return', { id: ready.id, summary: 'They add up.' });
  const other = (await host.api.call('task-create', { botId: writer.id, title: 'Plan the week' })).task;
  await open(page, host, '#/board');
  const main = page.getByRole('main');
  const column = (name) => main.getByRole('region', { name: new RegExp(`^${name}`) });

  // The tile's own button does what a drag does, from the keyboard.
  const move = column('In progress').getByRole('button', { name: 'Accept result: move Check the numbers to Done' });
  await move.focus();
  await page.keyboard.press('Enter');
  await expect(column('Done').getByRole('button', { name: 'Check the numbers', exact: true })).toBeVisible();
  await expect(column('Done').getByRole('button', { name: 'Check the numbers', exact: true })).toBeFocused();

  // Priority and progress, edited in the card.
  await column('Not started').getByRole('button', { name: 'Plan the week' }).click();
  const card = page.getByRole('dialog', { name: 'Plan the week' });
  await card.getByLabel('Priority').selectOption('urgent');
  await card.getByLabel('Progress (%)').fill('30');
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(card.getByText('urgent', { exact: true })).toBeVisible();
  await expect(card.getByText('30%', { exact: true })).toBeVisible();
  await page.screenshot({ path: '/tmp/board-edit.png' });
  await card.getByRole('button', { name: 'Close' }).click();
  await expect(column('Not started').locator(`[data-task-id="${other.id}"].w-prio-urgent`)).toBeVisible();
  const row = (await host.api.call('tasks', {})).tasks.find((t) => t.id === other.id);
  expect([row.priority, row.progress]).toEqual(['urgent', 30]);
});

// A board reload (a live tasks.written from any card) redraws only the open
// card's facts: text typed in "Note for the Bot" and its focus are kept.
test('text typed in a card survives a live write elsewhere on the board', async ({ page, host }) => {
  await host.api.state();
  const writer = await host.api.createBot('Writer');
  const task = (await host.api.call('task-create', { botId: writer.id, title: 'Write the launch note' })).task;
  await host.api.call('task-accept', { id: task.id });
  await host.api.call('task-start', { id: task.id });
  await host.api.call('task-return', { id: task.id, summary: 'A first draft.' });
  await open(page, host, '#/board');
  const main = page.getByRole('main');
  await main.getByRole('button', { name: 'Write the launch note', exact: true }).click();
  const card = page.getByRole('dialog', { name: 'Write the launch note' });
  const note = card.getByLabel('Note for the Bot');
  await note.fill('Half of what I meant to say');
  await expect(note).toBeFocused();
  // Someone else writes another card meanwhile; the board shows it live.
  await host.api.call('task-create', { botId: writer.id, title: 'Another card' });
  await expect(main.getByRole('button', { name: 'Another card' })).toBeVisible();
  await expect(card.getByLabel('Note for the Bot')).toHaveValue('Half of what I meant to say');
  await expect(card.getByLabel('Note for the Bot')).toBeFocused();
});

// Issue 31: the task drive's wakes read as one muted event line in the
// Bot's chat, naming the card, never as a person's "[Continue task]" line.
test("a card's wakes show in its Bot's chat as one muted line naming the card", async ({ page, host }) => {
  await host.api.state();
  const writer = await host.api.createBot('Writer');
  await host.api.call('task-create', { botId: writer.id, title: 'Write a haiku' });
  await open(page, host, `#/bot/${writer.id}`);
  const main = page.getByRole('main');
  const event = main.locator('.chat-event', { hasText: "Working on 'Write a haiku'" });
  await expect(event).toHaveCount(1);
  // No person's bubble: the offline mock's own reply quotes what it got, which is the mock's.
  await expect(main.locator('.msg.user')).toHaveCount(0);
  await expect(main.getByText('FlyBot', { exact: true })).toHaveCount(0);
  await page.screenshot({ path: '/tmp/wake-line.png' });
});
