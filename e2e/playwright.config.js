// Playwright for the FlyBot page (issue 12): Debian's chromium, headless,
// one worker (the machines have two cores and each test runs its own
// `flybot serve`), a screenshot and a trace kept for a failed test.
'use strict';

const { CHROMIUM } = require('./chromium');

const { defineConfig } = require('@playwright/test');
const path = require('node:path');

module.exports = defineConfig({
  testDir: path.join(__dirname, 'tests'),
  outputDir: path.join(__dirname, 'test-results'),
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: CHROMIUM,
  },
});
