// A task card on the board (#1058) and its detail dialog: facts, audit text (#1730) and the requester's moves (#54, #202, #207, #130).

import { h, replace, when } from '../dom.js';
import { preview, readable } from './text.js';
import { attempt, field, alertLine } from './ui.js';

const STATUS_LABEL = {
  open: 'Open',
  claimed: 'Claimed',
  working: 'Working',
  blocked: 'Blocked',
  'result-ready': 'Result ready',
  accepted: 'Accepted',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

const TERMINAL = new Set(['accepted', 'cancelled', 'failed']);

export function isTerminal(task) {
  return TERMINAL.has(task.status);
}

function roomName(state, id) {
  return state?.rooms.find((r) => r.id === id)?.name || null;
}

function botName(state, id, fallback) {
  return fallback || state?.bots.find((b) => b.id === id)?.name || id;
}

/** Who moves this card: its requester, or anyone on a single-owner host. */
export function mayMove(state, task) {
  if (state?.actor?.singleOwner) return true;
  const me = state?.actor?.memberId;
  return !task.requesterId || task.requesterId === me;
}

function progressBar(task) {
  if (typeof task.progress !== 'number') return null;
  const value = Math.max(0, Math.min(100, task.progress));
  return h('progress', { class: 'w-progress', max: '100', value: String(value), 'aria-label': `Progress ${value}%` }, `${value}%`);
}

function waitWord(task) {
  if (task.status !== 'blocked') return null;
  return task.waitingFor === 'approval' ? 'waiting on an approval' : 'waiting on your answer';
}

/** One card tile; `onOpen(task)` opens its detail. */
export function cardTile(task, state, onOpen) {
  const priority = task.priority || 'normal';
  const room = roomName(state, task.roomId);
  const assignee = task.claimedBy && task.claimedBy !== task.botId ? botName(state, task.claimedBy) : null;
  return h(
    'li',
    { class: `w-card w-prio-${priority}`, dataset: { taskId: task.id } },
    h('h3', { class: 'w-card-title' }, h('button', { type: 'button', class: 'w-card-open', onclick: () => onOpen(task) }, preview(task.title, 120) || '(untitled)')),
    h(
      'div',
      { class: 'w-card-meta' },
      h('span', { class: `w-prio w-prio-tag-${priority}` }, priority),
      h('span', { class: `w-status w-status-${task.status}` }, STATUS_LABEL[task.status] || task.status),
      waitWord(task) ? h('span', { class: 'w-wait' }, waitWord(task)) : null,
    ),
    progressBar(task),
    h(
      'p',
      { class: 'w-card-who' },
      h('span', {}, botName(state, task.botId, task.ownerBotName)),
      assignee ? h('span', {}, ` · claimed by ${assignee}`) : null,
      task.queueRole && !task.claimedBy ? h('span', {}, ` · queue: ${task.queueRole}`) : null,
      room ? h('span', { class: 'muted' }, ` · ${room}`) : null,
    ),
    task.parentTitle ? h('p', { class: 'w-card-parent muted' }, `Part of ${preview(task.parentTitle, 60)}`) : null,
  );
}

function facts(task, state) {
  const rows = [
    ['Status', STATUS_LABEL[task.status] || task.status],
    ['Priority', task.priority || 'normal'],
    ['Progress', typeof task.progress === 'number' ? `${task.progress}%` : 'not reported'],
    ['Bot', botName(state, task.botId, task.ownerBotName)],
    task.claimedBy ? ['Claimed by', botName(state, task.claimedBy)] : null,
    task.queueRole ? ['Queue', task.queueRole] : null,
    ['Room', roomName(state, task.roomId) || 'none'],
    task.parentTitle ? ['Part of', preview(task.parentTitle, 120)] : null,
    task.target?.href ? ['Target', task.target.href] : null,
    task.writeBack ? ['Decision comment', task.writeBack.state + (task.writeBack.error ? ` — ${task.writeBack.error}` : '')] : null,
    ['Created', when(task.createdAt)],
    ['Updated', when(task.updatedAt)],
  ].filter(Boolean);
  return h('dl', { class: 'w-facts' }, rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

function block(title, text) {
  if (!text) return null;
  return h('section', { class: 'w-block' }, h('h3', {}, title), h('p', { class: 'w-block-text' }, readable(text)));
}

/** A move that needs a text: a labelled textarea and its button. */
function textMove(label, name, buttonText, run) {
  const box = h('textarea', { rows: 3, name });
  const form = h('form', {
    class: 'w-move-form',
    onsubmit: (event) => {
      event.preventDefault();
      attempt(form, form.querySelector('button[type="submit"]'), () => run(box.value));
    },
  });
  replace(form, field(label, box, { name }), h('button', { type: 'submit', class: 'primary' }, buttonText), alertLine());
  return form;
}

/** The moves the machine draws from this card's status, for its requester. */
function moves(task, api, done) {
  const id = task.id;
  const scope = h('div', { class: 'w-moves' });
  const act = (endpoint, body = {}) => async () => {
    await api.call(endpoint, { id, ...body });
    await done();
  };
  const plain = (text, endpoint, cls = '') =>
    h('button', { type: 'button', class: cls, onclick: (e) => attempt(scope, e.currentTarget, act(endpoint)) }, text);
  const parts = [];
  if (task.status === 'open') parts.push(plain('Accept', 'task-accept', 'primary'));
  if (task.status === 'claimed') parts.push(plain('Start', 'task-start', 'primary'));
  if (task.status === 'result-ready') parts.push(plain('Accept result', 'task-accept-result', 'primary'));
  const forms = [];
  if (task.status === 'working') forms.push(textMove('Result summary', 'summary', 'Return result', (summary) => act('task-return', { summary })()));
  if (task.status === 'blocked' && task.waitingFor === 'input' && task.inputRequest) {
    const q = task.inputRequest;
    forms.push(textMove('Answer', 'answer', 'Send answer', (answer) => act('task-answer-input', { questionId: q.id, answer })()));
  }
  if (task.status === 'result-ready') forms.push(textMove('Note for the Bot', 'note', 'Send back', (note) => act('task-send-back', { note })()));
  if (!isTerminal(task)) {
    const confirm = h('div', { class: 'w-confirm', hidden: true }, h('span', {}, 'Cancel this task for good? '),
      h('button', { type: 'button', class: 'danger', onclick: (e) => attempt(scope, e.currentTarget, act('task-cancel')) }, 'Yes, cancel task'),
      h('button', { type: 'button', onclick: () => { confirm.hidden = true; ask.hidden = false; ask.focus(); } }, 'Keep it'));
    const ask = h('button', { type: 'button', class: 'danger', onclick: () => { ask.hidden = true; confirm.hidden = false; confirm.querySelector('button').focus(); } }, 'Cancel task');
    parts.push(ask, confirm);
  }
  replace(scope, alertLine(), forms, parts.length ? h('div', { class: 'w-move-row' }, parts) : null);
  return scope;
}

/** The detail of `task` (the row as `tasks` answers it) with its audit text and its moves; `onMoved()` reloads the board. */
export async function cardDetail(task, { api, state, onMoved }) {
  let audit = '';
  let auditError = null;
  try {
    audit = (await api.call('task-audit', { id: task.id })).audit;
  } catch (error) {
    auditError = error.message;
  }
  const question = task.status === 'blocked' && task.inputRequest ? block('Question', task.inputRequest.question) : null;
  const waitApproval = task.status === 'blocked' && task.waitingFor === 'approval'
    ? h('p', { class: 'muted' }, 'This card waits on an approval; answer it in the Inbox.')
    : null;
  const movable = mayMove(state, task);
  return h(
    'div',
    { class: 'w-detail' },
    facts(task, state),
    block('Note', task.note),
    block('Result summary', task.summary),
    question,
    task.inputAnswer ? block('Last answer', task.inputAnswer.answer) : null,
    waitApproval,
    h(
      'section',
      { class: 'w-block' },
      h('h3', {}, 'Audit'),
      auditError
        ? h('p', { class: 'w-alert', role: 'alert' }, auditError)
        : audit
          ? h('pre', { class: 'w-audit', tabindex: '0', 'aria-label': 'Audit text' }, audit)
          : h('p', { class: 'muted' }, 'No handoff, evidence, rework or lease recorded on this card.'),
    ),
    isTerminal(task)
      ? h('p', { class: 'muted' }, `This card is ${STATUS_LABEL[task.status].toLowerCase()}; nothing moves it again.`)
      : movable
        ? h('section', { class: 'w-block' }, h('h3', {}, 'Moves'), moves(task, api, onMoved))
        : h('p', { class: 'muted' }, 'Only the person who asked for this card can move it.'),
  );
}
