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
  await page.screenshot({ path: test.info().outputPath('project.png') });
});

test("#1712 a Project's page shows its assistant's daily task and the run that escalated, which the schedule list leaves out", async ({ page, host }) => {
  await host.api.state();
  const { project } = await host.api.call('project-create', { name: 'Site', repository: 'acme/site' });
  await open(page, host, `#/project/${project.id}`);
  const digest = page.getByRole('region', { name: 'Latest digest' });
  await expect(digest.getByText(/writes it daily at 09:00 \(Asia\/Shanghai\); next /)).toBeVisible();
  await expect(digest.getByText('None yet: the daily task has not run.')).toBeVisible();
  // Settings → Scheduled tasks lists no task: the daily one is the Project's.
  await page.goto(`${host.url}/#/schedules`);
  await expect(page.getByRole('heading', { name: 'Scheduled tasks', level: 1 })).toBeVisible();
  await expect(page.getByText('No tasks yet.')).toBeVisible();
  await expect(page.getByText('Daily digest')).toHaveCount(0);

  // The real run waits for 09:00 in Shanghai; a test double of the host's
  // `project-read` answer stands in for a run that escalated (the channel
  // test the_daily_task_is_no_ordinary_scheduled_task_and_the_project_shows_its_escalation
  // covers the host's side).
  await page.route('**/api/bot/project-read', async (route) => {
    const response = await route.fetch();
    const answer = await response.json();
    answer.daily.lastRun = { at: Date.now(), result: 'failed', reason: 'No GitHub connector is signed in: connect one in Settings → Connectors.', scheduledFor: Date.now(), sessionId: 's' };
    await route.fulfill({ response, json: answer });
  });
  await page.goto(`${host.url}/#/project/${project.id}`);
  await expect(digest.getByText(/^Escalated .*:/)).toBeVisible();
  await expect(digest.getByText(/No GitHub connector is signed in/)).toBeVisible();
  await digest.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('project-escalation.png') });
});
