// #1712 (Stage 2.5): a Project's page shows the Project, its board, its
// memory and the latest digest; its owner adds to the memory there, and a
// digest with no GitHub connector signed in is refused with the sentence.
'use strict';

const { test, expect, open } = require('../fixtures');

test("a Project's page shows its board and memory, and the digest says why it cannot run", async ({ page, host }) => {
  await host.api.state();
  const { project } = await host.api.call('project-create', { name: 'Site', repository: 'acme/site' });
  const bot = await host.api.createBot('Dev');
  await host.api.call('project-bind', { botId: bot.id, project: project.id });
  await host.api.call('task-create', { botId: bot.id, title: 'Write the parser' });

  await open(page, host, `#/project/${project.id}`);
  await expect(page.getByRole('heading', { name: 'Site', level: 1 })).toBeVisible();
  const board = page.getByRole('region', { name: 'Board' });
  await expect(board.getByText('Write the parser — Dev')).toBeVisible();
  const memory = page.getByRole('region', { name: 'Memory' });
  await memory.getByRole('textbox', { name: 'Entry' }).fill('Ship on Fridays');
  await memory.getByRole('button', { name: 'Add to memory' }).click();
  await expect(memory.getByText('Ship on Fridays')).toBeVisible();
  const digest = page.getByRole('region', { name: 'Latest digest' });
  await expect(digest.getByText('No digest yet.')).toBeVisible();
  await digest.getByRole('button', { name: "Write today's digest" }).click();
  await expect(page.getByRole('alert').filter({ hasText: /GitHub connector/ })).toBeVisible();
  await page.screenshot({ path: '/tmp/wt36-project.png' });
});
