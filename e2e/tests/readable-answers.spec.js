// Issue 31, "Readable answers" and "Stop and reload that keep": an answer is
// drawn as markdown (lists, tables, links, code with a Copy button) with its
// text as text; a Stop keeps what was streamed, marked stopped; a page opened
// mid-answer shows the answer from its start, then the rest; Escape stops.
'use strict';

const { test, expect, open } = require('../fixtures');
const { startHost, startScriptedModel, lastOf } = require('../harness');
const { expectAccessible } = require('../a11y');

const ANSWER = [
  'Here is **bold** and a [site](https://example.com/docs) and a [trap](javascript:alert(1)).',
  '',
  '- first item',
  '- second item',
  '',
  '| Name | Count |',
  '| --- | ---: |',
  '| apples | 3 |',
  '',
  '```rust',
  'fn main() { println!("a very long line that scrolls sideways instead of wrapping: ' + 'x'.repeat(200) + '"); }',
  '```',
  '',
  '<img src=x onerror=alert(1)> stays text.',
].join('\n');

test.describe('a Bot on a scripted model', () => {
  let model;
  let host;
  test.beforeEach(async () => {
    model = await startScriptedModel();
    model.rule((request) => lastOf(request, 'user').includes('show markdown'), { text: ANSWER, deltaChars: 40 });
    model.rule((request) => lastOf(request, 'user').includes('tell a story'), 'hold');
    host = await startHost({ models: { scripted: model.baseUrl } });
  });
  test.afterEach(async () => {
    await host.stop();
    await model.stop();
  });

  test('an answer is drawn as markdown, its links only http(s), raw HTML as text', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await host.api.state();
    const bot = await host.api.createBot('Writer', { model: 'scripted' });
    await open(page, host, `#/bot/${bot.id}`);
    const main = page.getByRole('main');
    const box = main.getByRole('textbox', { name: 'Message' });
    await box.fill('Please show markdown');
    await box.press('Enter');

    const answer = main.locator('.msg.assistant').last();
    await expect(answer.locator('strong', { hasText: 'bold' })).toBeVisible();
    await expect(answer.getByRole('listitem')).toHaveText(['first item', 'second item']);
    await expect(answer.getByRole('columnheader')).toHaveText(['Name', 'Count']);
    await expect(answer.getByRole('cell', { name: '3' })).toHaveClass(/md-align-right/);
    const site = answer.getByRole('link', { name: 'site' });
    await expect(site).toHaveAttribute('href', 'https://example.com/docs');
    await expect(site).toHaveAttribute('rel', 'noopener noreferrer');
    // A javascript: link is no link: its words stay, as text.
    await expect(answer.getByRole('link', { name: 'trap' })).toHaveCount(0);
    await expect(answer.getByText('trap')).toBeVisible();
    // Raw HTML is shown as written and never becomes an element.
    await expect(answer.getByText('<img src=x onerror=alert(1)> stays text.')).toBeVisible();
    await expect(answer.locator('img')).toHaveCount(0);
    // The code block: monospace, scrolls sideways, a Copy button that copies it.
    const pre = answer.locator('.md-code pre');
    await expect(pre).toContainText('fn main()');
    const scrolls = await pre.evaluate((el) => el.scrollWidth > el.clientWidth && getComputedStyle(el).overflowX === 'auto');
    expect(scrolls).toBe(true);
    expect(await pre.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono/i);
    await answer.getByRole('button', { name: 'Copy the rust code' }).click();
    await expect(answer.getByRole('button', { name: 'Copy the rust code' })).toHaveText('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('fn main() {');
    await page.screenshot({ path: test.info().outputPath('markdown-1280.png'), fullPage: true });
    await expectAccessible(page, 'chat with a markdown answer');
    // At phone width in the dark theme the code still scrolls inside its block, not the page.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    const pageScrolls = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
    expect(pageScrolls).toBe(false);
    await page.screenshot({ path: test.info().outputPath('markdown-390-dark.png'), fullPage: true });
    await expectAccessible(page, 'chat with a markdown answer (390 px, dark)');
  });

  test('Stop keeps what was streamed, marked stopped, and the box has the focus again', async ({ page }) => {
    await host.api.state();
    const bot = await host.api.createBot('Teller', { model: 'scripted' });
    await open(page, host, `#/bot/${bot.id}`);
    const main = page.getByRole('main');
    const box = main.getByRole('textbox', { name: 'Message' });
    await box.fill('Please tell a story');
    await box.press('Enter');
    const answer = await model.held();
    answer.send('It was a **dark** and stormy');
    await expect(main.locator('.msg.assistant strong', { hasText: 'dark' })).toBeVisible();
    // Escape stops the running turn, wherever the focus is.
    await main.getByRole('log').focus();
    await page.keyboard.press('Escape');
    await answer.closed;
    const kept = main.locator('.msg.assistant.stopped');
    await expect(kept).toContainText('It was a dark and stormy');
    await expect(kept).toContainText('Stopped here');
    await expect(main.getByRole('button', { name: 'Stop' })).toBeHidden();
    await expect(box).toBeFocused();

    // The host kept it: a fresh page shows the same answer, marked stopped.
    await page.reload();
    await expect(main.locator('.msg.assistant.stopped')).toContainText('It was a dark and stormy');
    const log = await host.api.call('messages', { botId: bot.id });
    const texts = log.messages.filter((m) => m.kind === 'assistant').map((m) => m.text);
    expect(texts).toEqual(['It was a **dark** and stormy']);
    expect(log.messages.at(-1).reason).toEqual({ kind: 'aborted', by: 'user' });
  });

  test('a page opened mid-answer shows it from its start, then the rest', async ({ page }) => {
    await host.api.state();
    const bot = await host.api.createBot('Teller', { model: 'scripted' });
    await host.api.call('send', { botId: bot.id, text: 'Please tell a story' });
    const answer = await model.held();
    answer.send('Once upon a time, ');
    answer.send('a small Bot ');
    // Wait until the host has streamed both pieces.
    await expect.poll(async () => (await host.api.call('messages', { botId: bot.id })).draft?.text).toBe('Once upon a time, a small Bot ');

    await open(page, host, `#/bot/${bot.id}`);
    const main = page.getByRole('main');
    const draft = main.locator('.msg.assistant.streaming');
    await expect(draft).toHaveText(/Once upon a time, a small Bot/);
    answer.send('shipped a page.');
    await expect(draft).toContainText('Once upon a time, a small Bot shipped a page.');
    answer.end();
    await expect(main.locator('.msg.assistant:not(.streaming)').last()).toContainText('Once upon a time, a small Bot shipped a page.');
    await expect(main.getByText('Once upon a time', { exact: false })).toHaveCount(1);
  });
});
