// Playwright for the FlyBot page (issue 12): Debian's chromium, headless,
// two workers (each test runs its own `flybot serve` on its own home and
// port, its own Synapse or PostgreSQL database where it needs one, so tests
// share nothing; most of a test's time is waiting on the page, so two
// workers on two cores finish the suite in well under the time of one,
// issue 38), a screenshot kept for a failed test (and its trace with
// FLYBOT_TRACE=1).
'use strict';

const { CHROMIUM } = require('./chromium');

const { defineConfig } = require('@playwright/test');
const path = require('node:path');

module.exports = defineConfig({
  testDir: path.join(__dirname, 'tests'),
  outputDir: path.join(__dirname, 'test-results'),
  workers: 2,
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
    // A trace is recorded for every test to keep a failed one's, which cost
    // the suite a sixth of its time; FLYBOT_TRACE=1 records them.
    trace: process.env.FLYBOT_TRACE ? 'retain-on-failure' : 'off',
    launchOptions: CHROMIUM,
  },
});
