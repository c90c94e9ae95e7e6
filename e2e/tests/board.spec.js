// Issue 12, "Tests in a real browser", and issue 31, "The board asks the
// host what a person may do": a card made on the page, worked by its Bot
// (the Bot's moves are the Bot's: a person finds them only folded under
// "Move it for the Bot", where the host takes them from the requester,
// #54), its result accepted by dragging it to Done, where it stays in
// sight; a finished card archived off the Done column.
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

  // The Bot's moves are not the person's to do: folded away, apart.
  await column('Not started').getByRole('button', { name: 'Write the launch note', exact: true }).click();
  const card = page.getByRole('dialog', { name: 'Write the launch note' });
  await expect(card.getByText('Writer picks this card up and starts it')).toBeVisible();
  await expect(card.getByRole('button', { name: 'Cancel task' })).toBeVisible();
  await expect(card.getByRole('button', { name: 'Claim for the Bot' })).toBeHidden();
  await expect(card.getByRole('button', { name: 'Start for the Bot' })).toHaveCount(0);
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
  await page.screenshot({ path: test.info().outputPath('board-done.png') });
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
  await page.screenshot({ path: test.info().outputPath('board-edit.png') });
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
  await page.screenshot({ path: test.info().outputPath('wake-line.png') });
});

test('a card moved for the Bot from its fold, accepted, then archived off the Done column and still in the whole archive', async ({ page, host }) => {
  await host.api.state();
  const writer = await host.api.createBot('Writer');
  const { task } = await host.api.call('task-create', { botId: writer.id, title: 'Draft the FAQ' });
  await open(page, host, '#/board');
  const main = page.getByRole('main');
  const column = (name) => main.getByRole('region', { name: new RegExp(`^${name}`) });
  const openCard = async (where) => {
    await column(where).getByRole('button', { name: 'Draft the FAQ', exact: true }).click();
    return page.getByRole('dialog', { name: 'Draft the FAQ' });
  };

  // Claim, start and return, each where the host takes it from the requester.
  let card = await openCard('Not started');
  await card.getByText('Move it for the Bot').click();
  await card.getByRole('button', { name: 'Claim for the Bot' }).click();
  // The fold stays open across the redraw after each move.
  await card.getByRole('button', { name: 'Start for the Bot' }).click();
  await card.getByLabel('Result summary').fill('Ten questions answered.');
  await card.getByRole('button', { name: 'Return the result' }).click();
  await expect(card.getByRole('button', { name: 'Accept result' })).toBeVisible();
  await expect(card.getByRole('button', { name: 'Claim for the Bot' })).toHaveCount(0);
  await card.getByRole('button', { name: 'Accept result' }).click();
  await expect(card.getByRole('button', { name: 'Archive card' })).toBeVisible();
  await card.getByRole('button', { name: 'Close' }).click();

  // Archived from the Done column's tile, by keyboard. A team change that
  // redraws the board meanwhile leaves the focus on Archive, not on the
  // card's title, whose Enter would open the card instead.
  const archive = column('Done').getByRole('button', { name: 'Archive Draft the FAQ: take it off the Done column' });
  await archive.focus();
  await host.api.call('task-create', { botId: writer.id, title: 'Index the FAQ' });
  await expect(column('Not started').getByRole('button', { name: 'Index the FAQ', exact: true })).toBeVisible();
  await expect(archive).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(column('Done').getByRole('button', { name: 'Draft the FAQ', exact: true })).toHaveCount(0);
  await expect(main.getByRole('heading', { name: /^Done/ })).toBeFocused();
  const row = (await host.api.call('tasks', { archive: true })).tasks.find((t) => t.id === task.id);
  expect(row.status).toBe('accepted');
  expect(typeof row.archivedAt).toBe('number');

  // The whole archive still lists it, marked, with nothing left to do.
  await main.getByRole('button', { name: 'Show all finished' }).click();
  const tile = column('Done').locator(`[data-task-id="${task.id}"]`);
  await expect(tile.getByText('Archived', { exact: true })).toBeVisible();
  await expect(tile.getByRole('button', { name: /^Archive/ })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('board-archived.png') });
  card = await openCard('Done');
  await expect(card.getByText('This card is accepted and archived; nothing moves it again.')).toBeVisible();
});
