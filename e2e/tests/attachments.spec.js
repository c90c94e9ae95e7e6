// Issue 32, "Attachments and images": a picture pasted into a Bot's chat
// shows as the host's thumbnail and reaches a model that sees images (here
// the mock declared with imageInput, a fake vision model that says how many
// pictures it was handed); a text file attached in a room reaches the
// room's Bot as fenced text and shows in the room as a download link; a
// Bot's answer that attaches a picture of its workspace (`attach_file`)
// shows that picture's thumbnail with the answer.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { test, expect, open } = require('../fixtures');
const { startHost, startScriptedModel, allText } = require('../harness');

/** A `width` x `height` PNG: a blue-to-green gradient with a white band. */
function png(width, height) {
  const table = new Int32Array(256).map((_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c;
  });
  const crc = (bytes) => {
    let c = -1;
    for (const b of bytes) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ -1) >>> 0;
  };
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const band = y > height / 3 && y < (height * 2) / 3;
      row[1 + x * 3] = band ? 255 : 30;
      row[2 + x * 3] = band ? 255 : Math.round((x / width) * 200);
      row[3 + x * 3] = band ? 255 : 220;
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The width the browser drew `thumb` at once its bytes arrived: awaits the image's decode (which fails on a broken
 * image), since an <img> is laid out, and so visible, before its bytes come.
 */
function drawnWidth(thumb) {
  return thumb.evaluate((img) => img.decode().then(() => img.naturalWidth));
}

test.describe('a picture in a Bot chat', () => {
  let host;
  test.beforeEach(async () => {
    const vision = '[models.vision]\nprovider = "mock"\nmodel = "mock"\ncontextWindow = 65536\nimageInput = true\n';
    host = await startHost({ config: vision });
    await host.api.state();
  });
  test.afterEach(async () => {
    await host.stop();
  });

  test('paste an image, see its thumbnail, see the vision model answer it', async ({ page }) => {
    const bot = await host.api.createBot('Iris', { model: 'vision' });
    await open(page, host, `#/bot/${bot.id}`);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.click();
    const bytes = [...png(320, 200)];
    await box.evaluate((target, data) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data)], 'screenshot.png', { type: 'image/png' }));
      target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
    }, bytes);
    const tray = page.getByRole('list', { name: 'Attached files' });
    await expect(tray.getByText('screenshot.png')).toBeVisible();
    await expect(tray.locator('img.attach-thumb')).toBeVisible();

    await box.fill('what is in this picture?');
    await box.press('Enter');
    const log = page.getByRole('log', { name: 'Chat with Iris' });
    const thumb = log.getByRole('img', { name: 'screenshot.png' });
    await expect(thumb).toBeVisible();
    expect(await drawnWidth(thumb)).toBeGreaterThan(0);
    await expect(log.getByText('I received: what is in this picture? with 1 image')).toBeVisible();
    await expect(tray.getByText('screenshot.png')).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath('chat-with-image.png') });
  });
});

test.describe('a text file in a room', () => {
  let model;
  let host;
  test.beforeEach(async () => {
    model = await startScriptedModel();
    host = await startHost({ models: { scripted: model.baseUrl } });
    await host.api.state();
  });
  test.afterEach(async () => {
    await host.stop();
    await model.stop();
  });

  test('attach a text file in a room: the Bot reads it fenced, the room shows the file', async ({ page }) => {
    const ids = [];
    for (const name of ['Alpha', 'Beta']) ids.push((await host.api.createBot(name, { model: 'scripted' })).id);
    const room = await host.api.createRoom('Plans', ids);
    model.rule((request) => allText(request).includes('untrusted-file name="plan.md"') && allText(request).includes('ship on Friday'), {
      text: 'The plan says Friday.',
    });
    await open(page, host, `#/room/${room.id}`);
    await page.locator('.attach-tray input[type=file]').setInputFiles({
      name: 'plan.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Plan\n\nWe ship on Friday.\n'),
    });
    const tray = page.getByRole('list', { name: 'Attached files' });
    await expect(tray.locator('.attach-chip:not(.pending)')).toHaveCount(1);
    const box = page.getByRole('main').getByRole('textbox', { name: 'Message' });
    await box.fill('@all read the plan');
    await box.press('Enter');
    const log = page.getByRole('log', { name: 'Room lines' });
    await expect(log.getByText('@all read the plan', { exact: true })).toBeVisible();
    await expect(log.getByRole('link', { name: 'plan.md' })).toBeVisible();
    await expect(log.getByText('The plan says Friday.').first()).toBeVisible();
    await expect(log.getByText('ship on Friday')).toHaveCount(0);
  });
});

test.describe('a picture a Bot attaches to its answer', () => {
  let model;
  let host;
  test.beforeEach(async () => {
    model = await startScriptedModel();
    host = await startHost({ models: { scripted: model.baseUrl } });
    await host.api.state();
  });
  test.afterEach(async () => {
    await host.stop();
    await model.stop();
  });

  test('the answer shows the thumbnail of the file the Bot attached', async ({ page }) => {
    const bot = await host.api.createBot('Plotter', { model: 'scripted' });
    const folder = path.join(host.home, 'workspaces', bot.id, 'out');
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(folder, 'chart.png'), png(240, 160));
    const answered = (request) => request.messages.some((m) => m.role === 'tool');
    model.rule(answered, { text: 'Here is the chart.' });
    model.rule(() => true, 'hold');
    await open(page, host, `#/bot/${bot.id}`);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('draw the chart');
    await box.press('Enter');
    // The model's first answer calls attach_file on the workspace's picture.
    const call = await model.held();
    const args = JSON.stringify({ path: 'out/chart.png' });
    const toolCall = { index: 0, id: 'call_1', type: 'function', function: { name: 'attach_file', arguments: args } };
    call.ended = true;
    call.response.write(call.chunk({ tool_calls: [toolCall] }, 'tool_calls'));
    call.response.end('data: [DONE]\n\n');
    const log = page.getByRole('log', { name: 'Chat with Plotter' });
    await expect(log.getByText('Here is the chart.')).toBeVisible();
    const thumb = log.locator('.msg.assistant').getByRole('img', { name: 'chart.png' });
    await expect(thumb).toBeVisible();
    expect(await drawnWidth(thumb)).toBeGreaterThan(0);
    await page.screenshot({ path: test.info().outputPath('bot-attached-picture.png') });
  });
});
