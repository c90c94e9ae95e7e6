// Issue 35: a standby serves its page read-only. A leader and a standby on
// one PostgreSQL database (the private cluster `scripts/test` starts and
// names in FLYBOT_TEST_PG), sharing config and owner token as two machines
// given the same home would. The page on the standby reads the team the
// leader saves, says it is a standby, and a write made there is refused
// with the read-only sentence; nothing it tried reaches the team. When the
// leader dies, the page left open on the standby stops saying so and writes.
'use strict';

const { execFileSync } = require('node:child_process');
const { test, expect } = require('../fixtures');
const { startHost } = require('../harness');

const admin = process.env.FLYBOT_TEST_PG;

/** A fresh database in the test cluster, dropped by `drop()`. */
function testDatabase() {
  const name = `flybot_e2e_${process.pid}_${Date.now()}`;
  execFileSync('psql', [admin, '-qc', `CREATE DATABASE ${name}`]);
  return {
    url: admin.replace(/\/[^/]*$/, `/${name}`),
    drop: () => execFileSync('psql', [admin, '-qc', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]),
  };
}

let db;
let leader;
let standby;
test.beforeEach(async () => {
  test.skip(!admin, 'FLYBOT_TEST_PG is not set (scripts/test starts a private PostgreSQL and sets it)');
  db = testDatabase();
  leader = await startHost({ args: ['--store', db.url] });
  standby = await startHost({ home: leader.home, args: ['--store', db.url, '--standby'] });
});
test.afterEach(async () => {
  await standby?.stop();
  await leader?.stop();
  db?.drop();
});

test("a standby's page reads the team and refuses a write with the read-only sentence", async ({ page }) => {
  await leader.api.state();
  const bot = await leader.api.createBot('Scout');
  // A sign-in is a write, so the session is made on the leader; the
  // standby knows it (it follows the team), as behind one address.
  await page.goto(leader.signInUrl);
  await expect(page.getByRole('navigation').first()).toBeVisible();

  await page.goto(`${standby.url}/#/bot/${bot.id}`);
  const nav = page.getByRole('navigation').first();
  await expect(nav.getByRole('link', { name: /Scout/ })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'This FlyBot is a standby' }).first()).toBeVisible();

  // A Bot the leader makes now shows on the standby's page (reads follow).
  await leader.api.createBot('Later');
  await expect(nav.getByRole('link', { name: /Later/ })).toBeVisible();

  const main = page.getByRole('main');
  const box = main.getByRole('textbox', { name: 'Message' });
  await box.fill('hello from the standby');
  await box.press('Enter');
  await expect(main.getByText(/This FlyBot is a standby and only reads: .* saves the team; make the change there/)).toBeVisible();
  await page.screenshot({ path: '/tmp/standby-page.png' });

  // Nothing the standby was asked reached the team.
  const messages = await leader.api.call('messages', { botId: bot.id, limit: 50 });
  expect(JSON.stringify(messages.messages)).not.toContain('hello from the standby');
});

test('when the leader dies, the standby takes over and its open page can write again', async ({ page }) => {
  test.setTimeout(60_000);
  await leader.api.state();
  const bot = await leader.api.createBot('Scout');
  await page.goto(leader.signInUrl);
  await expect(page.getByRole('navigation').first()).toBeVisible();
  await page.goto(`${standby.url}/#/bot/${bot.id}`);
  const banner = page.getByRole('status').filter({ hasText: 'This FlyBot is a standby' }).first();
  await expect(banner).toBeVisible();

  // The leader is killed as a crashed machine is: no goodbye, its lease
  // simply lapses (5 s by default), and the standby takes it.
  leader.child.kill('SIGKILL');
  await expect(banner).toBeHidden({ timeout: 20_000 });

  // The page that was open on the standby writes now: the line is saved and
  // the Bot (the offline mock) answers it.
  const main = page.getByRole('main');
  const box = main.getByRole('textbox', { name: 'Message' });
  await box.fill('hello after the takeover');
  await box.press('Enter');
  await expect(main.getByText('hello after the takeover').first()).toBeVisible();
  await expect(main.getByText(/This FlyBot is a standby/)).toHaveCount(0);
  // The turn starts once the line settles; its line is then in the log
  // the new leader saves, and the page's live stream is connected again.
  await expect
    .poll(async () => JSON.stringify((await standby.api.call('messages', { botId: bot.id, limit: 50 })).messages))
    .toContain('hello after the takeover');
  await expect(page.getByRole('status').filter({ hasText: 'Reconnecting' })).toHaveCount(0);
  await page.screenshot({ path: '/tmp/standby-takeover.png' });
});
