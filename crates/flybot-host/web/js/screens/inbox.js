// The Inbox (#/inbox): tool approvals and held sends (#540, #754) and cards waiting for this person's input (#207), each answered in place.

import { h, replace, when } from '../dom.js';
import { approvalCard } from '../chat/approval_card.js';
import * as approvals from '../chat/approvals.js';
import { inputWaits } from '../sidebar.js';

function inputCard(ctx, task, names) {
  const id = `answer-${task.id}`;
  const box = h('textarea', { id, rows: '2' });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Answer');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': `${id}-title` },
    h('h3', { id: `${id}-title` }, `${names.bot(task.botId) || 'A Bot'} needs your input on “${task.title}”`),
    h('p', {}, task.inputRequest?.question || 'It is waiting for your answer.'),
    h('p', { class: 'hint' }, `Asked ${when(task.inputRequest?.requestedAt)}`),
    h('label', { for: id }, 'Your answer'),
    box,
    error,
    h('div', { class: 'actions' }, send, h('a', { class: 'button', href: '#/board' }, 'Open the board')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    send.disabled = true;
    try {
      await ctx.api.call('task-answer-input', { id: task.id, questionId: task.inputRequest?.id, answer: box.value });
      form.replaceChildren(h('p', { class: 'ok', role: 'status' }, `Answered “${task.title}”.`));
      ctx.team.refresh().catch(() => {});
    } catch (refusal) {
      error.textContent = refusal.message;
      send.disabled = false;
      box.focus();
    }
  });
  return form;
}

export async function show(main, ctx) {
  const names = {
    bot: (id) => (ctx.team.state?.bots || []).find((b) => b.id === id)?.name,
  };
  const tools = h('div');
  const inputs = h('div');
  const summary = h('p', { class: 'muted', role: 'status' });
  replace(main, h('h1', {}, 'Inbox'), summary, h('h2', {}, 'Approvals'), tools, h('h2', {}, 'Questions for you'), inputs);

  // Cards keep their place (and a half-typed answer) across redraws.
  const keyed = (holder, items, key, build, none) => {
    const have = new Map([...holder.children].filter((c) => c.dataset.key).map((c) => [c.dataset.key, c]));
    const want = new Set(items.map(key));
    for (const [k, el] of have) if (!want.has(k) && !el.dataset.settled) el.remove();
    holder.querySelector('.empty')?.remove();
    for (const item of items) {
      if (!have.has(key(item))) {
        const el = build(item);
        el.dataset.key = key(item);
        holder.append(el);
      }
    }
    // A settled card kept for its outcome is not 'nothing'.
    const kept = [...holder.children].filter((c) => c.dataset.key && !want.has(c.dataset.key)).length;
    if (!items.length && !kept) holder.append(h('p', { class: 'muted empty' }, none));
    return kept;
  };

  const redraw = () => {
    const list = approvals.waiting();
    const waits = inputWaits(ctx.team.state);
    const kept =
      keyed(tools, list, (a) => a.id, (a) => approvalCard(a, names, { link: true }), 'No tool call or message waits for your approval.') +
      keyed(inputs, waits, (t) => `${t.id}:${t.inputRequest?.id}`, (t) => inputCard(ctx, t, names), 'No card waits for your answer.');
    const count = list.length + waits.length;
    summary.textContent = count
      ? `${count} waiting for you.`
      : kept
        ? 'Nothing else waits for you: read the outcome below, then dismiss it.'
        : 'Nothing waits for you.';
  };
  // A dismissed outcome leaves after this event: count again once it is gone.
  tools.addEventListener('approval-dismissed', () => queueMicrotask(redraw));
  const offs = [approvals.onApprovals(redraw), ctx.team.onChange(redraw)];
  approvals.reload(0);
  redraw();
  return () => offs.forEach((off) => off());
}
