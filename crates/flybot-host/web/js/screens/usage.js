// Usage (#/usage, #903): the ledger's rows for the person's own Bots (`usage {botId?}`), summed per harness tier (#874) and per day and Bot: calls, tokens and wall time.

import { h, svg, replace } from '../dom.js';

const DAYS = 14;

function day(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** A sum that stays honest about missing counts. */
function tokens(rows, key) {
  let sum = 0;
  let missing = 0;
  for (const row of rows) {
    if (row[key] === null || row[key] === undefined) missing += 1;
    else sum += row[key];
  }
  if (missing === rows.length) return 'unknown';
  return missing ? `${sum.toLocaleString()} + unknown` : sum.toLocaleString();
}

function duration(ms) {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

function group(rows, keyOf) {
  const groups = new Map();
  for (const row of rows) {
    const key = keyOf(row);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(row);
  }
  return groups;
}

function chart(rows) {
  const counts = group(rows, (r) => day(r.at));
  const days = [];
  for (let i = DAYS - 1; i >= 0; i -= 1) days.push(day(Date.now() - i * 86400000));
  const values = days.map((d) => counts.get(d)?.length || 0);
  const top = Math.max(1, ...values);
  const W = 560;
  const H = 160;
  const pad = 24;
  const step = (W - pad * 2) / days.length;
  const bars = days.map((d, i) => {
    const height = Math.round(((H - pad * 2) * values[i]) / top);
    const x = pad + i * step + 3;
    return svg(
      'g',
      {},
      svg('rect', { class: 'bar', x, y: H - pad - height, width: step - 6, height, rx: 2 }, svg('title', {}, `${d}: ${values[i]} calls`)),
      values[i] ? svg('text', { x: x + (step - 6) / 2, y: H - pad - height - 4, 'text-anchor': 'middle' }, String(values[i])) : null,
      i % 2 === 0 ? svg('text', { x: x + (step - 6) / 2, y: H - 8, 'text-anchor': 'middle' }, d.slice(5)) : null,
    );
  });
  const total = values.reduce((a, b) => a + b, 0);
  return svg(
    'svg',
    { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `Model calls per day over the last ${DAYS} days: ${total} in all, at most ${top} in one day.` },
    svg('line', { class: 'axis', x1: pad, y1: H - pad, x2: W - pad, y2: H - pad }),
    bars,
  );
}

function table(rows, botName) {
  const groups = group(rows, (r) => `${day(r.at)}\u0000${r.botId}`);
  const keys = [...groups.keys()].sort().reverse();
  const num = (text) => h('td', { class: 'num' }, text);
  return h(
    'div',
    { class: 'table-wrap', role: 'region', 'aria-label': 'Usage per day and Bot', tabindex: '0' },
    h(
      'table',
      {},
      h('caption', { class: 'sr-only' }, 'Usage per day and Bot'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Day'), h('th', { scope: 'col' }, 'Bot'), ...['Calls', 'Input tokens', 'Output tokens', 'Tool calls', 'Wall time'].map((t) => h('th', { scope: 'col', class: 'num' }, t)))),
      h(
        'tbody',
        {},
        keys.map((key) => {
          const [d, botId] = key.split('\u0000');
          const list = groups.get(key);
          return h(
            'tr',
            {},
            h('td', {}, d),
            h('td', {}, botName(botId)),
            num(String(list.length)),
            num(tokens(list, 'inputTokens')),
            num(tokens(list, 'outputTokens')),
            num(String(list.reduce((a, r) => a + (r.toolCalls || 0), 0))),
            num(duration(list.reduce((a, r) => a + (r.wallMs || 0), 0))),
          );
        }),
      ),
    ),
  );
}

const HARNESS_ORDER = ['default', 'lite', 'medium', 'heavy'];

/** One row per harness tier the rows ran under (#874): calls, tool calls per call, tokens, wall time. */
function byHarness(rows) {
  const groups = group(rows, (r) => r.harness || 'default');
  const rank = (k) => (HARNESS_ORDER.includes(k) ? HARNESS_ORDER.indexOf(k) : HARNESS_ORDER.length);
  const keys = [...groups.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const num = (text) => h('td', { class: 'num' }, text);
  return h(
    'div',
    { class: 'table-wrap', role: 'region', 'aria-label': 'Usage per harness', tabindex: '0' },
    h(
      'table',
      { id: 'usage-by-harness' },
      h('caption', {}, 'Per harness'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Harness'), ...['Calls', 'Tool calls', 'Input tokens', 'Output tokens', 'Wall time'].map((t) => h('th', { scope: 'col', class: 'num' }, t)))),
      h(
        'tbody',
        {},
        keys.map((key) => {
          const list = groups.get(key);
          return h(
            'tr',
            { 'data-harness': key },
            h('th', { scope: 'row' }, key[0].toUpperCase() + key.slice(1)),
            num(String(list.length)),
            num(String(list.reduce((a, r) => a + (r.toolCalls || 0), 0))),
            num(tokens(list, 'inputTokens')),
            num(tokens(list, 'outputTokens')),
            num(duration(list.reduce((a, r) => a + (r.wallMs || 0), 0))),
          );
        }),
      ),
    ),
  );
}

export async function show(main, ctx) {
  const bots = (ctx.team.state?.bots || []).filter((b) => !b.hidden);
  const botName = (id) => bots.find((b) => b.id === id)?.name || id;
  const pick = h('select', { id: 'usage-bot' }, h('option', { value: '' }, 'All my Bots'), bots.map((b) => h('option', { value: b.id }, b.name)));
  const body = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading usage…'));
  const load = async () => {
    try {
      const { rows } = await ctx.api.call('usage', pick.value ? { botId: pick.value } : {});
      if (!rows.length) {
        replace(body, h('p', { class: 'muted' }, 'No model calls yet.'));
        return;
      }
      const totals = h(
        'p',
        {},
        `${rows.length} calls · input tokens ${tokens(rows, 'inputTokens')} · output tokens ${tokens(rows, 'outputTokens')} · wall time ${duration(rows.reduce((a, r) => a + (r.wallMs || 0), 0))}`,
      );
      replace(body, totals, chart(rows), byHarness(rows), table(rows, botName));
    } catch (refusal) {
      replace(body, h('p', { class: 'form-error', role: 'alert' }, refusal.message));
    }
  };
  pick.addEventListener('change', load);
  replace(main, h('h1', {}, 'Usage'), h('div', { class: 'field' }, h('label', { for: 'usage-bot' }, 'Bot'), pick), body);
  await load();
  const off = ctx.live.on('turn.ended', () => load());
  return off;
}
