// Issue 12, "Tests in a real browser": "a room with three Bots, an @all
// line answered by each in order, Stop in the middle of a round". The Bots
// run on the scripted model; each answers as itself (its system prompt
// opens "## You are <Name>").
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startScriptedModel, botOf } = require('../harness');

let model;
let host;
let room;
test.beforeEach(async () => {
  model = await startScriptedModel();
  host = await startHost({ models: { scripted: model.baseUrl } });
  await host.api.state();
  const ids = [];
  for (const name of ['Alpha', 'Beta', 'Gamma']) {
    ids.push((await host.api.createBot(name, { model: 'scripted' })).id);
  }
  room = await host.api.createRoom('Trio', ids);
});
test.afterEach(async () => {
  await host.stop();
  await model.stop();
});

/** The speakers of the room's lines, top to bottom, as the page shows them. */
async function speakers(page) {
  const rows = page.getByRole('log', { name: 'Room lines' }).getByRole('listitem');
  const texts = await rows.allInnerTexts();
  return texts.map((text) => text.split('\n')[0].trim());
}

test('a room with three Bots: an @all line answered by each in order', async ({ page }) => {
  model.rule((request) => !!botOf(request), { text: (request) => `${botOf(request)} reporting in.` });
  await open(page, host, `#/room/${room.id}`);
  await expect(page.getByRole('heading', { name: 'Trio' })).toBeVisible();
  const box = page.getByRole('main').getByRole('textbox', { name: 'Message' });
  await box.fill('@all good morning');
  await box.press('Enter');

  const log = page.getByRole('log', { name: 'Room lines' });
  await expect(log.getByText('@all good morning')).toBeVisible();
  await expect(log.getByText('Gamma reporting in.')).toBeVisible();
  await expect(log.getByText('Alpha reporting in.')).toBeVisible();
  await expect(log.getByText('Beta reporting in.')).toBeVisible();
  // A streamed answer shows before its line is drawn with its speaker
  // (a CI run read the rows between the two): wait for the three rows.
  let who = [];
  const order = () => ['Alpha', 'Beta', 'Gamma'].map((name) => who.indexOf(name));
  await expect
    .poll(async () => {
      who = await speakers(page);
      return order().every((at) => at > 0);
    }, { message: 'each Bot\'s line is drawn with its speaker' })
    .toBe(true);
  expect(order(), `speakers on screen: ${who.join(', ')}`).toEqual([...order()].sort((a, b) => a - b));
  await expect(page.getByRole('button', { name: 'Stop round' })).toBeDisabled();
});

test('Stop in the middle of a round', async ({ page }) => {
  let betaCalls = 0;
  model.rule((request) => botOf(request) === 'Beta' && ++betaCalls === 1, 'hold');
  model.rule((request) => !!botOf(request), { text: (request) => `${botOf(request)} reporting in.` });
  await open(page, host, `#/room/${room.id}`);
  const box = page.getByRole('main').getByRole('textbox', { name: 'Message' });
  await box.fill('@all count to a million');
  await box.press('Enter');

  const log = page.getByRole('log', { name: 'Room lines' });
  await expect(log.getByText('Alpha reporting in.')).toBeVisible();
  const beta = await model.held();
  beta.send('One, two, three');
  // Beta's answer streams in while it speaks.
  await expect(page.getByRole('main').getByText('One, two, three')).toBeVisible();
  await expect(page.getByRole('main').getByText('Beta is speaking.')).toBeVisible();

  const stop = page.getByRole('button', { name: 'Stop round' });
  await expect(stop).toBeEnabled();
  await stop.click();
  // The host cancels Beta's turn (it hangs up on the model) and the round ends.
  await beta.closed;
  await expect(stop).toBeDisabled();
  // What the cut turn said is kept as its line, and the room says who was
  // cut (issue 31); the members still to speak (Gamma) are skipped: no
  // line, no model call.
  await expect(log.locator('.w-line-chat', { hasText: 'One, two, three' })).toHaveCount(1);
  await expect(log.getByText('Beta was cut off by Stop; the line above is as far as it got.')).toBeVisible();
  await expect(page.getByRole('main').getByText(/No round running/)).toBeVisible();
  const who = await speakers(page);
  expect(who.indexOf('Alpha')).toBeGreaterThan(0);
  expect(who).not.toContain('Gamma');
  expect(model.requests.map(botOf)).not.toContain('Gamma');
});

test('Escape stops the round; the cut member keeps what it said', async ({ page }) => {
  model.rule((request) => botOf(request) === 'Alpha', 'hold');
  await open(page, host, `#/room/${room.id}`);
  const box = page.getByRole('main').getByRole('textbox', { name: 'Message' });
  await box.fill('@Alpha start the story');
  await box.press('Enter');
  const alpha = await model.held();
  alpha.send('In the beginning');
  await expect(page.locator('.w-draft')).toContainText('In the beginning');
  await page.getByRole('log', { name: 'Room lines' }).focus();
  await page.keyboard.press('Escape');
  await alpha.closed;
  const log = page.getByRole('log', { name: 'Room lines' });
  await expect(log.locator('.w-line-chat', { hasText: 'In the beginning' })).toBeVisible();
  await expect(log.getByText('Alpha was cut off by Stop; the line above is as far as it got.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stop round' })).toBeDisabled();
});

test('a page opened while a member speaks shows its line from the start, then the rest', async ({ page }) => {
  model.rule((request) => botOf(request) === 'Alpha', 'hold');
  model.rule((request) => !!botOf(request), { text: '[PASS]' });
  await host.api.call('send', { roomId: room.id, text: '@Alpha tell us' });
  const alpha = await model.held();
  alpha.send('Once upon a time, ');
  alpha.send('a small Bot ');
  await expect.poll(async () => (await host.api.call('messages', { roomId: room.id })).draft?.text).toBe('Once upon a time, a small Bot ');

  await open(page, host, `#/room/${room.id}`);
  const draft = page.locator('.w-draft');
  await expect(draft).toContainText('Once upon a time, a small Bot');
  alpha.send('shipped a page.');
  await expect(draft).toContainText('Once upon a time, a small Bot shipped a page.');
  alpha.end();
  const log = page.getByRole('log', { name: 'Room lines' });
  await expect(log.locator('.w-line-chat', { hasText: 'Once upon a time, a small Bot shipped a page.' })).toBeVisible();
  await expect(page.locator('.w-draft')).toHaveCount(0);
});

test('@mention completion from the room members, and a peer line shown as text', async ({ page }) => {
  model.rule((request) => botOf(request) === 'Beta', { text: 'Beta: <img src=x onerror="window.pwned=1"> is just text.' });
  model.rule((request) => !!botOf(request), { text: '[PASS]' });
  await open(page, host, `#/room/${room.id}`);
  const box = page.getByRole('main').getByRole('textbox', { name: 'Message' });
  await box.focus();
  await page.keyboard.type('Morning @Be');
  const choices = page.getByRole('listbox', { name: 'Members to mention' });
  await expect(choices.getByRole('option', { name: /Beta/ })).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(box).toHaveValue(/^Morning @Beta\s?$/);
  await page.keyboard.type(' what is new?');
  await page.keyboard.press('Enter');
  const log = page.getByRole('log', { name: 'Room lines' });
  await expect(log.getByText(/Morning @Beta\s+what is new\?/)).toBeVisible();
  // #130: a peer's text is text, never HTML.
  await expect(log.getByText('Beta: <img src=x onerror="window.pwned=1"> is just text.')).toBeVisible();
  await expect(log.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => window.pwned)).toBeUndefined();
});
