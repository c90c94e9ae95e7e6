// A friend's Bot's own chat (#/friend/<roomId>, issue 33): the Bot a friend's home shares with this home, by the one label with its owner badge (#498, #967), the lines both homes wrote (a line that was not sent says why in one sentence, #404), whether an answer is awaited (#443) or a line still waits to go (#371), and a box to write to it. A share that ended keeps the screen and its history, marked no longer shared, with no box (#956). Only the home's owner has it: the host refuses `social` to anyone else.

import { h, replace, when, coalesce } from '../dom.js';
import { attempt, markTyped, redrawKeeping } from '../work/ui.js';

/** Who wrote `line`, as this home reads it: you or your Bot, or the friend's Bot (verified only from its own home), or a person of that home (#227). */
function author(ctx, bot, line, me) {
  if (line.fromHome === me) {
    const mine = line.bot && (ctx.team.state.bots || []).find((b) => b.id === line.bot);
    return mine ? mine.name : 'You';
  }
  if (line.bot) return line.verified ? bot.label : `${line.fromHome} · unverified`;
  return line.typedBy || line.fromHome;
}

function lineView(ctx, bot, line, me) {
  const mine = line.fromHome === me;
  return h(
    'li',
    { class: `friend-line ${mine ? 'mine' : 'theirs'}`, dataset: { line: line.id } },
    h('p', { class: 'who' }, h('strong', {}, author(ctx, bot, line, me)), ' ', h('span', { class: 'hint' }, when(line.at))),
    h('p', { class: 'text' }, line.text),
    line.notSent ? h('p', { class: 'form-error not-sent', role: 'alert' }, line.notSent) : null,
  );
}

function writeBox(ctx, bot, refresh) {
  const id = `friend-write-${bot.roomId}`;
  const box = h('textarea', { id, name: 'text', rows: '3', 'aria-label': `Write to ${bot.title}`, 'aria-describedby': `${id}-error` });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send');
  const line = h('div', { class: 'w-field', dataset: { field: 'text' } }, box, h('p', { class: 'w-field-error', id: `${id}-error`, hidden: true }));
  const form = h('form', { class: 'friend-write', 'aria-label': `A line to ${bot.title}`, dataset: { keep: id } }, line, h('div', { class: 'actions' }, send));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!box.value.trim()) return;
    const sent = await attempt(form, send, () => ctx.api.call('social-send', { roomId: bot.roomId, text: box.value }));
    if (!sent) return;
    box.value = '';
    delete box.dataset.typed;
    await refresh();
  });
  return form;
}

function draw(ctx, main, view, roomId, refresh) {
  const bot = (view.remoteBots || []).find((b) => b.roomId === roomId);
  if (!bot) {
    replace(main, h('h1', {}, 'Friend\'s Bot'), h('p', { class: 'muted' }, 'No friend\'s home shares this Bot with you. Its owner can publish it to you from their home.'));
    return;
  }
  const me = view.account?.userId;
  const waiting = bot.pendingCount || 0;
  const lines = bot.lines.map((line) => lineView(ctx, bot, line, me));
  replace(
    main,
    h('h1', {}, bot.label, ' ', h('span', { class: 'badge owner-badge', title: `Shared by ${bot.home}` }, bot.owner)),
    h('p', { class: 'hint' }, `A friend's Bot, from ${bot.home}. Its answers come from its own home.`),
    bot.shared ? null : h('p', { class: 'notice gone', role: 'status' }, 'No longer shared: its owner stopped sharing it, so messages to it cannot be delivered. Ask its owner for a new invite.'),
    lines.length ? h('ol', { class: 'friend-lines', 'aria-label': `Lines with ${bot.title}` }, ...lines) : h('p', { class: 'muted' }, 'No line yet. Write the first one.'),
    bot.awaiting ? h('p', { class: 'hint', role: 'status' }, 'Waiting for its answer…') : null,
    waiting ? h('p', { class: 'hint' }, `${waiting} waiting to be sent.`) : null,
    bot.shared ? writeBox(ctx, bot, refresh) : null,
  );
}

export async function show(main, ctx, { roomId }) {
  let drawn = false;
  let gone = false;
  const refresh = coalesce(async () => {
    let view;
    try {
      view = await ctx.api.call('social');
      if (gone) return;
    } catch (refusal) {
      if (gone) return;
      replace(main, h('h1', {}, 'Friend\'s Bot'), h('p', { class: 'muted' }, refusal.message));
      return;
    }
    // A line being sent holds the redraw until its answer, which draws (`w-settled`).
    if (main.querySelector('[data-busy]')) return;
    // A half-typed line and a refusal not yet read survive a redraw.
    redrawKeeping(main, () => draw(ctx, main, view, roomId, refresh));
    if (!drawn) main.querySelector('.friend-write textarea')?.focus();
    drawn = true;
  }, () => gone);
  const unmark = markTyped(main);
  await refresh();
  const settled = () => refresh().catch(() => {});
  main.addEventListener('w-settled', settled);
  const off = ctx.team.onChange(() => refresh().catch(() => {}));
  return () => {
    gone = true;
    main.removeEventListener('w-settled', settled);
    unmark();
    off();
  };
}
