// Issue 15: the Schedules screen. A person makes a task for a Bot from the
// sidebar, sees its next run and status, pauses, resumes and deletes it; a
// refusal (#1651) shows its sentence beside the field and makes nothing.
'use strict';

const { test, expect, open } = require('../fixtures');
const { expectAccessible } = require('../a11y');

test('make, pause, resume and delete a scheduled task; a refusal stays beside its field', async ({ page, host }) => {
  await host.api.state();
  await host.api.createBot('Planner');
  await open(page, host);
  await page.getByRole('navigation').first().getByRole('link', { name: 'Schedules' }).click();
  await expect(page.getByRole('heading', { name: 'Scheduled tasks' })).toBeVisible();
  await expect(page.getByText('No tasks yet.')).toBeVisible();

  await page.getByLabel('Chat', { exact: true }).selectOption({ label: 'Planner' });
  await page.getByLabel('Title').fill('Standup');
  await page.getByLabel('Prompt').fill('Post the standup.');
  await page.getByLabel('Repeats').selectOption('every');
  await page.getByLabel('When').fill('30');
  await page.getByRole('button', { name: 'Schedule' }).click();
  await expect(page.locator('#sc-when-e')).toHaveText('Repeat every 60 seconds to 7 days (604800 seconds).');
  expect((await host.api.call('schedules')).schedules).toEqual([]);

  await page.getByLabel('When').fill('3600');
  await page.getByRole('button', { name: 'Schedule' }).click();
  const row = page.getByRole('row', { name: /Standup/ });
  await expect(row).toContainText('Planner');
  await expect(row).toContainText('every 3600');
  await expect(row).toContainText('active');
  await expect(page.locator('#sc-when-e')).toHaveText('');
  await expectAccessible(page, 'schedules');
  await page.screenshot({ path: test.info().outputPath('schedules.png'), fullPage: true });

  await row.getByRole('button', { name: 'Pause Standup' }).click();
  await expect(row).toContainText('paused');
  await row.getByRole('button', { name: 'Retry Standup' }).click();
  await expect(page.getByRole('alert')).toHaveText('Resume the task first.');
  await row.getByRole('button', { name: 'Resume Standup' }).click();
  await expect(row).toContainText('active');
  await row.getByRole('button', { name: 'Delete Standup' }).click();
  await expect(page.getByText('No tasks yet.')).toBeVisible();
});
