// Issue 12, "Tests in a real browser": "An accessibility check (axe-core
// through its Playwright package) on every screen with no serious or
// critical violation". One host holds a bit of everything (a Bot with a
// line and a waiting approval, a room with lines, a card on the board), so
// each screen is checked with content drawn, not only empty.
'use strict';

const path = require('node:path');
const { test, expect, open } = require('../fixtures');
const { expectAccessible } = require('../a11y');
const { startHost, startMockModel } = require('../harness');

let model;
let host;
let bot;
let room;
test.beforeAll(async () => {
  model = await startMockModel([
    {
      when: { userContains: 'run the greeting', step: 0 },
      reply: { toolCalls: [{ name: 'run_command', arguments: { argv: ['echo', 'hi'] } }] },
    },
    { reply: { text: 'Noted; I will help with that.' } },
  ]);
  host = await startHost({ models: { scripted: model.baseUrl } });
  await host.api.state();
  bot = await host.api.createBot('Runner', { model: 'scripted', instructions: 'Run what is asked.' });
  const helper = await host.api.createBot('Helper', { model: 'scripted' });
  room = await host.api.createRoom('Crew', [bot.id, helper.id]);
  await host.api.send({ roomId: room.id }, '@Helper hello there');
  await host.api.call('task-create', { botId: helper.id, title: 'Check the release notes', roomId: room.id });
  // A finished card (its Archive on the board) and a saved key (the connector form's key variables).
  const done = (await host.api.call('task-create', { botId: helper.id, title: 'Tag the release' })).task;
  await host.api.call('task-cancel', { id: done.id });
  await host.api.call('secret-set', { name: 'SERVICE_KEY', value: 'a11y-key-value', scope: 'all' });
  await host.api.send({ botId: bot.id }, 'Please run the greeting');
});
test.afterAll(async () => {
  await host.stop();
  await model.stop();
});

const screens = [
  ['home', '', (page) => page.getByRole('main')],
  ['chat', () => `#/bot/${bot.id}`, (page) => page.getByRole('group', { name: /asks to use run_command/ })],
  ['new Bot form', '#/bots/new', (page) => page.getByLabel('Name', { exact: true })],
  ['Bot edit form', () => `#/bot/${bot.id}/edit`, (page) => page.getByLabel('Name', { exact: true })],
  ['room', () => `#/room/${room.id}`, (page) => page.getByRole('log', { name: 'Room lines' }).getByText('@Helper hello there')],
  ['board', '#/board', (page) => page.getByRole('button', { name: 'Check the release notes' })],
  ['inbox', '#/inbox', (page) => page.getByRole('group', { name: /asks to use run_command/ })],
  ['workflows', '#/workflows', (page) => page.getByRole('link', { name: 'Repository change' })],
  ['workflow', '#/workflow/repo-dev', (page) => page.getByRole('group', { name: /^Flowchart of/ })],
  ['usage', '#/usage', (page) => page.getByRole('heading', { name: 'Usage' })],
  ['settings', '#/settings', (page) => page.getByRole('heading', { name: 'Settings' })],
  ['new room form', '#/rooms/new', (page) => page.getByRole('checkbox', { name: 'Runner' })],
  ['schedules', '#/schedules', (page) => page.getByRole('heading', { name: 'Scheduled tasks' })],
  ['memory', () => `#/bot/${bot.id}/memory`, (page) => page.getByRole('heading', { name: /Memory/ })],
  ['search', '#/search?q=hello', (page) => page.getByRole('link', { name: /Room Crew/ })],
];

// Issue 31: every screen at desktop and phone width, in the light and the
// dark theme (the system's prefers-color-scheme), each kept as a
// screenshot under test-results/screens/ (git-ignored; CI keeps it).
const SHOTS = path.join(__dirname, '..', 'test-results', 'screens');

/** `open`, at a width where the sidebar folds behind Menu too. */
async function openAt(page, hash, width) {
  if (width > 700) return open(page, host, hash);
  const signedIn = (await page.context().cookies(host.url)).some((c) => c.name === 'flybot_session');
  await page.goto(signedIn ? `${host.url}/${hash}` : `${host.signInUrl}${hash}`);
  await expect(page.getByRole('button', { name: 'Menu' })).toBeVisible();
}
const widths = [
  [1280, 800],
  [390, 844],
];

/**
 * Each variant of a screen in one test, on one signed-in page, instead of
 * a new browser context and sign-in for each of the 68 (issue 38: the
 * file took 262 s of CI's page tests); each variant is its own step, so a
 * failure names its width and theme. Each width is loaded once, in the
 * light theme, and checked whole; the dark theme is then switched on the
 * same page, as the system's setting changes it for a person (the page
 * follows prefers-color-scheme live), and only the colour rules run again:
 * the markup the other rules read is the one just checked.
 */
function eachVariant(title, name, check) {
  test(`accessibility: the ${title} at 1280 and 390 px, light and dark`, async ({ page }) => {
    // Each variant keeps the time a test of its own had.
    test.setTimeout(widths.length * 2 * 30_000);
    for (const [width, height] of widths) {
      await test.step(`${width} px, light`, async () => {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme: 'light' });
        // A new load for each width: going to the same address with only
        // its hash changed would keep the last width's page.
        await page.goto('about:blank');
        await check(page, { width });
        await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
        await keep(page, name, width, 'light');
        await expectAccessible(page, `${name} (${width} px, light)`);
      });
      await test.step(`${width} px, dark`, async () => {
        await page.emulateMedia({ colorScheme: 'dark' });
        await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
        await keep(page, name, width, 'dark');
        await expectAccessible(page, `${name} (${width} px, dark)`, { coloursOnly: true });
      });
    }
  });
}

/** Keeps the screen as drawn under test-results/screens/. */
async function keep(page, name, width, theme) {
  const file = `${name.replace(/\W+/g, '-')}-${width}-${theme}.png`;
  await page.screenshot({ path: path.join(SHOTS, file) });
}

for (const [name, hash, drawn] of screens) {
  eachVariant(`${name} screen`, name, async (page, { width }) => {
    await openAt(page, typeof hash === 'function' ? hash() : hash, width);
    await expect(drawn(page).first()).toBeVisible();
  });
}

// Issue 31: the controls a screen shows only once asked, opened: the card's
// moves made for the Bot, a finished card's Archive, the connector form's
// key variable and the question before a key is deleted.
const opened = [
  ['board card with its moves for the Bot', '#/board', async (page) => {
    await expect(page.getByRole('button', { name: 'Archive Tag the release: take it off the Done column' })).toBeVisible();
    await page.getByRole('button', { name: 'Check the release notes' }).click();
    const card = page.getByRole('dialog', { name: 'Check the release notes' });
    await card.getByText('Move it for the Bot').click();
    await expect(card.getByRole('button', { name: 'Claim for the Bot' })).toBeVisible();
  }],
  ['settings with a key variable and a question open', '#/settings', async (page) => {
    const section = page.getByRole('region', { name: 'Connectors and keys' });
    await section.getByRole('button', { name: 'Add a variable from a saved key' }).click();
    await section.getByRole('button', { name: 'Delete SERVICE_KEY' }).click();
    await expect(section.getByRole('group', { name: 'Delete SERVICE_KEY?' })).toBeVisible();
    await expect(section.getByLabel('Variable 1 saved key')).toBeVisible();
  }],
];
for (const [name, hash, show] of opened) {
  eachVariant(name, name, async (page, { width }) => {
    await openAt(page, hash, width);
    await show(page);
  });
}

test('accessibility: the home screen at phone width, sidebar open', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto(host.signInUrl);
  const menu = page.getByRole('button', { name: 'Menu' });
  await expect(menu).toBeVisible();
  await expectAccessible(page, 'phone-width home');
  await menu.click();
  await expect(page.getByRole('navigation').first().getByRole('link', { name: 'Runner' })).toBeVisible();
  await expectAccessible(page, 'phone-width sidebar');
});

test('accessibility: the sign-in screen', async ({ page, host: fresh }) => {
  await fresh.api.state();
  // Without the owner's link, the page asks who is signing in.
  await page.goto(`${fresh.url}/`);
  await expect(page.getByLabel('Invitation code')).toBeVisible();
  await expectAccessible(page, 'sign-in');
});
