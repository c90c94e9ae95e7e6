#!/usr/bin/env node
// The page benchmark (issue 12, "Speed"): printed figures, not a timed test.
// Run: `node e2e/bench.js` (after `npm ci --prefix e2e` and `cargo build
// --release -p flybot`; FLYBOT_BIN names the flybot binary, else
// target/release/flybot, the build a person runs: a debug build sends the
// page in brotli at quality 5, not 11; CHROMIUM_BIN names the browser,
// else /usr/bin/chromium). Options: --runs N (draw timings, default 5),
// --tokens N (token-delay samples, default 200).
//
// What it measures, and how:
//
// 1. Bytes: the page's JavaScript and CSS, the sum of the files under
//    crates/flybot-host/web/ except index.html, uncompressed (goal < 150 KiB),
//    and as a browser receives them (issue 31): Chromium opens the page of a
//    running flybot once and the bench reads the `Accept-Encoding` it sent
//    for the page's main script (Debian's Chromium sends
//    `gzip, deflate, br, zstd` to http://127.0.0.1 as well); then every JS
//    and CSS file under web/ (each the page can load, not only those the
//    first screen loads) is fetched with that same header and the bytes on
//    the wire are summed (goal < 100 KiB for JS + CSS). `--only bytes`
//    prints these two lines alone.
// 2. Sidebar: a host with 100 Bots (plus the Chief) and 20 rooms. A fresh
//    page is opened at / and an init script's MutationObserver records
//    `performance.now()` (0 = the navigation's start) when the sidebar first
//    holds a link for every Bot and every room. First load (cold cache) and
//    the median of the following loads are printed.
// 3. Room of 1,000 lines: a room with 1,000 lines (a Bot that passes on
//    each, so the lines are the test's own). From the board, the page is
//    sent to #/room/<id>; the time from setting the hash to the room's log
//    holding its last line (a MutationObserver again) is the draw time.
// 4. Token delay: a Bot on the scripted model (harness.js, an
//    OpenAI-compatible server in this process whose answer the bench writes
//    one piece at a time). Each piece carries a marker (" k0042"); the bench
//    notes when it wrote the piece to the socket (Node's
//    performance.timeOrigin + performance.now()) and the page notes when the
//    marker first appears in the DOM (a MutationObserver callback, and the
//    next animation frame after it, as the painted time; both in the
//    browser's performance.timeOrigin + performance.now()). Both clocks are
//    this machine's wall clock at sub-millisecond resolution. The next piece
//    is written only after the page has shown the last one, so every sample
//    is the full path: model socket → flybot's provider client → the turn →
//    the live stream → EventSource → the chat screen → the DOM. The median,
//    90th percentile and maximum are printed (goal: median < 50 ms).
// 5. Markdown (issue 31): an answer of 2,000 lines (headings, paragraphs,
//    lists, tables, code blocks, links) drawn by the page's own module
//    (web/js/chat/markdown.js, the vendored marked lexer → DOM nodes) into
//    a chat bubble, with a forced layout after it: the time from the text
//    to the laid-out nodes, median of the runs (goal < 50 ms).

'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('@playwright/test');
const { CHROMIUM } = require('./chromium');
// The release build unless told otherwise (see the top of this file).
process.env.FLYBOT_BIN ||= path.join(__dirname, '..', 'target', 'release', 'flybot');
const { startHost, startScriptedModel, lastOf, REPO } = require('./harness');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const RUNS = option('runs', 5);
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const TOKENS = option('tokens', 200);

const LAUNCH = { ...CHROMIUM, headless: true };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const ms = (x) => `${x.toFixed(1)} ms`;

function pageBytes() {
  const root = path.join(REPO, 'crates', 'flybot-host', 'web');
  const totals = { js: 0, css: 0, other: 0, files: 0 };
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file !== path.join(root, 'index.html')) {
        const size = fs.statSync(file).size;
        const kind = file.endsWith('.js') ? 'js' : file.endsWith('.css') ? 'css' : 'other';
        totals[kind] += size;
        totals.files += 1;
      }
    }
  };
  walk(root);
  return totals;
}

/** One GET with the browser's `Accept-Encoding`; resolves to the bytes on the wire and the encoding. */
function wireBytes(url, acceptEncoding) {
  const http = require('node:http');
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': acceptEncoding } }, (response) => {
        let size = 0;
        response.on('data', (chunk) => (size += chunk.length));
        response.on('end', () => resolve({ size, encoding: response.headers['content-encoding'] || 'none', status: response.statusCode }));
      })
      .on('error', reject);
  });
}

/** The `Accept-Encoding` Chromium sends for the page's main script. */
async function browserAcceptEncoding(url) {
  const browser = await chromium.launch(LAUNCH);
  try {
    const page = await browser.newPage();
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith('/assets/js/main.js')),
      page.goto(url),
    ]);
    return (await request.allHeaders())['accept-encoding'] || '';
  } finally {
    await browser.close();
  }
}

/** The page's files as Chromium receives them from a running host. */
async function servedBytes() {
  const root = path.join(REPO, 'crates', 'flybot-host', 'web');
  const host = await startHost();
  const totals = { js: 0, css: 0, encodings: {}, files: 0, acceptEncoding: '' };
  try {
    totals.acceptEncoding = await browserAcceptEncoding(host.url);
    const walk = async (dir) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(file);
        else if (/\.(js|css)$/.test(file)) {
          const rel = path.relative(root, file).split(path.sep).join('/');
          const got = await wireBytes(`${host.url}/assets/${rel}`, totals.acceptEncoding);
          if (got.status !== 200) throw new Error(`/assets/${rel} answered ${got.status}`);
          totals[file.endsWith('.js') ? 'js' : 'css'] += got.size;
          totals.files += 1;
          totals.encodings[got.encoding] = (totals.encodings[got.encoding] || 0) + 1;
        }
      }
    };
    await walk(root);
  } finally {
    await host.stop();
  }
  return totals;
}

// An init script: records when `ready()` first holds, by MutationObserver.
function watchFor(ready) {
  return `(() => {
    const ready = ${ready};
    window.__drawnAt = null;
    const check = () => {
      if (window.__drawnAt === null && ready()) window.__drawnAt = performance.now();
    };
    new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
  })();`;
}

async function sidebarBench(browser) {
  const host = await startHost();
  try {
    await host.api.state();
    const ids = [];
    for (let n = 1; n <= 100; n += 1) ids.push((await host.api.createBot(`Bot ${String(n).padStart(3, '0')}`)).id);
    for (let n = 1; n <= 20; n += 1) {
      const members = ids.slice((n * 5) % 100, ((n * 5) % 100) + 5);
      await host.api.createRoom(`Room ${String(n).padStart(2, '0')}`, members);
    }
    const ready = `() => {
      const nav = document.querySelector('nav');
      return !!nav && nav.querySelectorAll('a[href^="#/bot/"]').length >= 101
        && nav.querySelectorAll('a[href^="#/room/"]').length >= 20;
    }`;
    const context = await browser.newContext();
    await context.addInitScript(watchFor(ready));
    const times = [];
    for (let run = 0; run <= RUNS; run += 1) {
      const page = await context.newPage();
      await page.goto(run === 0 ? host.signInUrl : `${host.url}/`);
      await page.waitForFunction(() => window.__drawnAt !== null, null, { timeout: 30000 });
      times.push(await page.evaluate(() => window.__drawnAt));
      await page.close();
    }
    await context.close();
    return { first: times[0], warm: median(times.slice(1)) };
  } finally {
    await host.stop();
  }
}

async function roomBench(browser) {
  const model = await startScriptedModel();
  model.rule(() => true, { text: '[PASS]' });
  const host = await startHost({ models: { scripted: model.baseUrl } });
  try {
    await host.api.state();
    const bot = await host.api.createBot('Quiet', { model: 'scripted' });
    const room = await host.api.createRoom('Long', [bot.id]);
    for (let n = 1; n <= 1000; n += 1) {
      await host.api.send({ roomId: room.id }, `Line ${String(n).padStart(4, '0')} of the long room.`);
    }
    const lines = (await host.api.messages({ roomId: room.id })).length;
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${host.signInUrl}#/board`);
    await page.getByRole('heading', { name: 'Board' }).waitFor();
    const times = [];
    let drawn = 0;
    for (let run = 0; run < RUNS; run += 1) {
      const result = await page.evaluate(
        (hash) =>
          new Promise((resolve) => {
            const t0 = performance.now();
            const done = () => {
              const log = document.querySelector('[role="log"]');
              if (log && log.textContent.includes('Line 1000 of the long room.')) {
                observer.disconnect();
                resolve({ ms: performance.now() - t0, items: log.querySelectorAll('li').length });
                return true;
              }
              return false;
            };
            const observer = new MutationObserver(done);
            observer.observe(document.body, { childList: true, subtree: true, characterData: true });
            location.hash = hash;
          }),
        `#/room/${room.id}`,
      );
      times.push(result.ms);
      drawn = result.items;
      await page.evaluate(() => (location.hash = '#/board'));
      await page.getByRole('heading', { name: 'Board' }).waitFor();
    }
    await page.context().close();
    return { lines, drawn, median: median(times), max: Math.max(...times) };
  } finally {
    await host.stop();
    await model.stop();
  }
}

async function tokenBench(browser) {
  const model = await startScriptedModel();
  model.rule((request) => lastOf(request, 'user').includes('count for me'), 'hold');
  const host = await startHost({ models: { scripted: model.baseUrl } });
  try {
    await host.api.state();
    const bot = await host.api.createBot('Counter', { model: 'scripted' });
    const page = await (await browser.newContext()).newPage();
    await page.addInitScript(() => {
      window.__seen = {};
      window.__painted = {};
      new MutationObserver((mutations) => {
        const at = performance.timeOrigin + performance.now();
        const fresh = [];
        for (const m of mutations) {
          const text = m.target.textContent || '';
          for (const match of text.matchAll(/ k(\d{4})/g)) {
            if (!(match[1] in window.__seen)) {
              window.__seen[match[1]] = at;
              fresh.push(match[1]);
            }
          }
        }
        if (fresh.length) {
          requestAnimationFrame(() => {
            const painted = performance.timeOrigin + performance.now();
            for (const k of fresh) window.__painted[k] = painted;
          });
        }
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    await page.goto(`${host.signInUrl}#/bot/${bot.id}`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await host.api.send({ botId: bot.id }, 'Please count for me');
    const answer = await model.held();
    const sent = {};
    for (let n = 1; n <= TOKENS; n += 1) {
      const key = String(n).padStart(4, '0');
      sent[key] = answer.send(` k${key}`);
      await page.waitForFunction((k) => k in window.__painted, key, { polling: 'raf' });
    }
    answer.end();
    const { seen, painted } = await page.evaluate(() => ({ seen: window.__seen, painted: window.__painted }));
    await page.context().close();
    const dom = Object.keys(sent).map((k) => seen[k] - sent[k]);
    const paint = Object.keys(sent).map((k) => painted[k] - sent[k]);
    return { dom, paint };
  } finally {
    await host.stop();
    await model.stop();
  }
}

/** A 2,000-line answer: sections of a heading, prose, a list, a table and a code block. */
function longAnswer(lines = 2000) {
  const out = [];
  for (let n = 1; out.length < lines; n += 1) {
    out.push(`## Part ${n}`, '', `Some **bold** words, some *emphasis*, \`code\` and a [link](https://example.com/${n}).`, '');
    out.push('- one item', '- another item with `code`', '  - a nested item', '');
    out.push('| Name | Count |', '| --- | ---: |', `| apples | ${n} |`, `| pears | ${n * 2} |`, '');
    out.push('```js', `const part = ${n};`, 'for (let i = 0; i < part; i += 1) console.log(i);', '```', '');
  }
  return out.slice(0, lines).join('\n');
}

async function markdownBench(browser) {
  const host = await startHost();
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(host.signInUrl);
    await page.getByRole('navigation').first().waitFor();
    const times = await page.evaluate(
      async ({ text, runs }) => {
        const { markdown } = await import('/assets/js/chat/markdown.js');
        const bubble = document.createElement('div');
        bubble.className = 'msg assistant';
        document.querySelector('main').append(bubble);
        const out = [];
        for (let run = 0; run < runs; run += 1) {
          const t0 = performance.now();
          bubble.replaceChildren(markdown(text));
          void bubble.offsetHeight;
          out.push(performance.now() - t0);
        }
        bubble.remove();
        return out;
      },
      { text: longAnswer(), runs: RUNS },
    );
    await page.context().close();
    return { median: median(times), max: Math.max(...times) };
  } finally {
    await host.stop();
  }
}

async function main() {
  const bytes = pageBytes();
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log('FlyBot page benchmark (issue 12, "Speed")');
  console.log(
    `page bytes (web/ less index.html, uncompressed): JS ${kib(bytes.js)} + CSS ${kib(bytes.css)} = ${kib(bytes.js + bytes.css)}` +
      `${bytes.other ? ` (+ ${kib(bytes.other)} other)` : ''} in ${bytes.files} files; goal < 150 KiB: ${bytes.js + bytes.css < 150 * 1024 ? 'met' : 'NOT met'}`,
  );
  const wire = await servedBytes();
  console.log(
    `page bytes as Chromium gets them (Accept-Encoding: ${wire.acceptEncoding}, as Chromium sent it; ${Object.entries(wire.encodings).map(([coding, n]) => `${n} of ${wire.files} files ${coding}`).join(', ')}): JS ${kib(wire.js)} + CSS ${kib(wire.css)} = ${kib(wire.js + wire.css)}; goal < 100 KiB: ${wire.js + wire.css < 100 * 1024 ? 'met' : 'NOT met'}`,
  );
  if (ONLY === 'bytes') return;
  const browser = await chromium.launch(LAUNCH);
  try {
    const sidebar = await sidebarBench(browser);
    console.log(
      `sidebar drawn, 100 Bots + 20 rooms (navigation start → every row drawn): first load ${ms(sidebar.first)}, later loads median ${ms(sidebar.warm)} (${RUNS} runs)`,
    );
    const room = await roomBench(browser);
    console.log(
      `room of ${room.lines} lines (hash set → last line drawn; ${room.drawn} rows on screen): median ${ms(room.median)}, max ${ms(room.max)} (${RUNS} runs)`,
    );
    const md = await markdownBench(browser);
    console.log(
      `markdown of a 2,000-line answer drawn (text → laid-out nodes): median ${ms(md.median)}, max ${ms(md.max)} (${RUNS} runs); goal < 50 ms: ${md.median < 50 ? 'met' : 'NOT met'}`,
    );
    const tokens = await tokenBench(browser);
    console.log(
      `token delay, model socket → text in the DOM (${tokens.dom.length} tokens): median ${ms(median(tokens.dom))}, p90 ${ms(pct(tokens.dom, 90))}, max ${ms(Math.max(...tokens.dom))}; goal median < 50 ms: ${median(tokens.dom) < 50 ? 'met' : 'NOT met'}`,
    );
    console.log(
      `token delay, model socket → next frame after it (painted): median ${ms(median(tokens.paint))}, p90 ${ms(pct(tokens.paint, 90))}, max ${ms(Math.max(...tokens.paint))}`,
    );
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
