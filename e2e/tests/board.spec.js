// Issue 12, "Tests in a real browser": "a card walked from created to
// accepted result on the board": every move made on the page (New task,
// Accept, Start, Return result, Accept result), the card seen in its column.
'use strict';

const { test, expect, open } = require('../fixtures');

test('a card walked from created to accepted result on the board', async ({ page, host }) => {
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
  await expect(column('Not started').getByRole('button', { name: 'Write the launch note' })).toBeVisible();

  // Open the card; each move redraws its detail with the next one.
  await column('Not started').getByRole('button', { name: 'Write the launch note' }).click();
  const card = page.getByRole('dialog', { name: 'Write the launch note' });
  await card.getByRole('button', { name: 'Accept', exact: true }).click();
  await card.getByRole('button', { name: 'Start', exact: true }).click();
  await card.getByLabel('Result summary').fill('The launch note is written.');
  await card.getByRole('button', { name: 'Return result' }).click();
  await expect(card.getByText('The launch note is written.')).toBeVisible();
  await card.getByRole('button', { name: 'Accept result' }).click();
  await expect(card.getByText(/nothing moves it again/)).toBeVisible();
  await card.getByRole('button', { name: 'Close' }).click();

  // Accepted: a finished card is in the Done column of the archive view.
  await main.getByRole('button', { name: 'Show archive' }).click();
  await expect(column('Done').getByRole('button', { name: 'Write the launch note' })).toBeVisible();
  await expect(column('Not started').getByRole('button', { name: 'Write the launch note' })).toHaveCount(0);
});

// A board reload (a live tasks.written from any card) redraws only the open
// card's facts: text typed in "Result summary" and its focus are kept.
test('text typed in a card survives a live write elsewhere on the board', async ({ page, host }) => {
  await host.api.state();
  const writer = await host.api.createBot('Writer');
  const task = (await host.api.call('task-create', { botId: writer.id, title: 'Write the launch note' })).task;
  await host.api.call('task-accept', { id: task.id });
  await host.api.call('task-start', { id: task.id });
  await open(page, host, '#/board');
  const main = page.getByRole('main');
  await main.getByRole('button', { name: 'Write the launch note' }).click();
  const card = page.getByRole('dialog', { name: 'Write the launch note' });
  const summary = card.getByLabel('Result summary');
  await summary.fill('Half of what I meant to say');
  await expect(summary).toBeFocused();
  // Someone else writes another card meanwhile; the board shows it live.
  await host.api.call('task-create', { botId: writer.id, title: 'Another card' });
  await expect(main.getByRole('button', { name: 'Another card' })).toBeVisible();
  await expect(card.getByLabel('Result summary')).toHaveValue('Half of what I meant to say');
  await expect(card.getByLabel('Result summary')).toBeFocused();
});
