// #374, #68: Settings' About block shows the build the binary was stamped
// with (this checkout's branch and commit), FlyBot's links, and the owner
// downloads the home's diagnostics log from it.
'use strict';

const fs = require('fs');
const path = require('path');
const { test, expect, open } = require('../fixtures');

test('About shows the stamped build and links, and the owner downloads the diagnostics log', async ({ page, host }) => {
  await host.api.state();
  fs.appendFileSync(path.join(host.home, 'diagnostics.log'), 'a warning the page must hand back\n');
  await open(page, host, '#/settings');
  const about = page.getByRole('region', { name: 'About' });
  // Built from git: `flybot <version> · <branch> <7 hex>`, or pinned; a
  // checkout without git (a source tarball) shows the version alone.
  const fromGit = fs.existsSync(path.join(__dirname, '..', '..', '.git'));
  const stamp = fromGit ? /^flybot \S+ · (\S+ [0-9a-f]{7}|[0-9a-f]{7} \(pinned\))$/ : /^flybot \S+$/;
  await expect(about.getByText(stamp)).toBeVisible();
  // #374: the update check is off by default, so how far behind is unknown, said honestly.
  await expect(about.getByText('Unknown: no update check answered')).toBeVisible();
  await expect(about.getByRole('link', { name: 'Source code' })).toHaveAttribute('href', 'https://github.com/ThinkFlowLab/FlyBot');
  await expect(about.getByRole('link', { name: 'Report a problem' })).toHaveAttribute('href', /issues\/new$/);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    about.getByRole('button', { name: 'Download diagnostics log' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('diagnostics.log');
  const saved = test.info().outputPath('diagnostics.log');
  await download.saveAs(saved);
  expect(fs.readFileSync(saved, 'utf8')).toContain('a warning the page must hand back');
  await about.screenshot({ path: test.info().outputPath('about.png') });
});
