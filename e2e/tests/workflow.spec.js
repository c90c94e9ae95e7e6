// Issue 12, "Tests in a real browser": "a workflow opened and drawn": the
// preset "Repository change" opened from the list, drawn as an SVG
// flowchart of its nodes, a node chosen to see its guards.
'use strict';

const { test, expect, open } = require('../fixtures');

test('a workflow opened and drawn', async ({ page, host }) => {
  await open(page, host);
  await page.getByRole('navigation').first().getByRole('link', { name: 'Workflows' }).click();
  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { name: 'Workflows' })).toBeVisible();
  await main.getByRole('link', { name: 'Repository change' }).click();

  const chart = main.getByRole('group', { name: 'Flowchart of Repository change' });
  await expect(chart).toBeVisible();
  // Its seven nodes are drawn, each a box the keyboard reaches.
  for (const id of ['triage', 'build', 'verify', 'review', 'gate', 'merge', 'release']) {
    await expect(chart.getByRole('button', { name: new RegExp(`^${id},`) })).toBeVisible();
  }
  await expect(chart.locator('svg text, text').getByText('Triage', { exact: true })).toBeVisible();
  // Arrows between them: the layout's edges are drawn.
  expect(await chart.locator('path, line, polyline').count()).toBeGreaterThan(0);

  // Choosing the merge gate shows its guards with the engine's preview.
  await chart.getByRole('button', { name: /^gate,/ }).click();
  const panel = main.getByRole('complementary', { name: 'Selected node' });
  await expect(panel.getByText(/held by|head moved|guard/i).first()).toBeVisible();
});
