// A task card on the board (#1058) and its detail dialog: facts, audit text (#1730) and the moves its row carries (issue 31: the host decides them, the page only draws them; #130).

import { h, replace, when } from '../dom.js';
import { preview, readable } from './text.js';
import { attempt, field, alertLine, select } from './ui.js';
import { evidenceBadge } from './evidence.js';

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

/** Whether the card is in the Done column (the host's `column`). */
export function isDone(task) {
  return task.column === 'done';
}

function roomName(state, id) {
  return state?.rooms.find((r) => r.id === id)?.name || null;
}

function botName(state, id, fallback) {
  return fallback || state?.bots.find((b) => b.id === id)?.name || id;
}

/** The column a move lands a card in, when it moves it to another one: what a drop on a column asks for. */
export const MOVE_TO_COLUMN = { 'accept-result': 'done' };

/** The move that lands `task` in `column`, if its row carries one. */
export function moveInto(task, column) {
  return (task.moves || []).find((m) => MOVE_TO_COLUMN[m] === column && task.column !== column) || null;
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

/** One card tile; `onOpen(task)` opens its detail, `onMove(task, column)` makes the move that lands it there, `onArchive(task)` archives a finished card whose row carries `archive`. */
export function cardTile(task, state, onOpen, onMove = null, onArchive = null) {
  const priority = task.priority || 'normal';
  const room = roomName(state, task.roomId);
  const assignee = task.claimedBy && task.claimedBy !== task.botId ? botName(state, task.claimedBy) : null;
  return h(
    'li',
    { class: `w-card w-prio-${priority}`, dataset: { taskId: task.id }, draggable: onMove && moveInto(task, 'done') ? 'true' : null },
    h('h3', { class: 'w-card-title' }, h('button', { type: 'button', class: 'w-card-open', dataset: { control: 'open' }, onclick: () => onOpen(task) }, preview(task.title, 120) || '(untitled)')),
    h(
      'div',
      { class: 'w-card-meta' },
      h('span', { class: `w-prio w-prio-tag-${priority}` }, priority),
      h('span', { class: `w-status w-status-${task.status}` }, STATUS_LABEL[task.status] || task.status),
      waitWord(task) ? h('span', { class: 'w-wait' }, waitWord(task)) : null,
      evidenceBadge(task),
      task.archivedAt ? h('span', { class: 'w-archived' }, 'Archived') : null,
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
    // The keyboard's way to do what a drag does.
    onMove && moveInto(task, 'done')
      ? h('button', { type: 'button', class: 'w-card-move', dataset: { control: 'accept' }, 'aria-label': `Accept result: move ${preview(task.title, 120)} to Done`, onclick: () => onMove(task, 'done') }, 'Accept result')
      : null,
    onArchive && (task.moves || []).includes('archive')
      ? h('button', { type: 'button', class: 'w-card-move', dataset: { control: 'archive' }, 'aria-label': `Archive ${preview(task.title, 120)}: take it off the Done column`, onclick: () => onArchive(task) }, 'Archive')
      : null,
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

/** Priority and progress, for a viewer whose row carries `edit`. */
function editForm(task, act) {
  const priority = select([['urgent', 'Urgent'], ['high', 'High'], ['normal', 'Normal'], ['low', 'Low']], task.priority || 'normal', { name: 'priority' });
  const progress = h('input', { type: 'number', name: 'progress', min: '0', max: '100', step: '5', value: typeof task.progress === 'number' ? String(task.progress) : '' });
  const form = h('form', {
    class: 'w-move-form w-edit-form',
    onsubmit: (event) => {
      event.preventDefault();
      const body = { priority: priority.value };
      if (progress.value !== '') body.progress = Number(progress.value);
      attempt(form, form.querySelector('button[type="submit"]'), act('task-update', body));
    },
  });
  replace(form, h('div', { class: 'w-edit-row' }, field('Priority', priority, { name: 'priority' }), field('Progress (%)', progress, { name: 'progress' })), h('button', { type: 'submit' }, 'Save'), alertLine());
  return form;
}

/** The moves the card's row carries for this viewer, and only those (issue 31). */
function moves(task, api, done) {
  const id = task.id;
  const has = (m) => (task.moves || []).includes(m);
  const scope = h('div', { class: 'w-moves' });
  const act = (endpoint, body = {}) => async () => {
    await api.call(endpoint, { id, ...body });
    await done();
  };
  const parts = [];
  if (has('accept-result')) {
    parts.push(h('button', { type: 'button', class: 'primary', onclick: (e) => attempt(scope, e.currentTarget, act('task-accept-result')) }, 'Accept result'));
  }
  const forms = [];
  if (has('answer') && task.inputRequest) {
    const q = task.inputRequest;
    forms.push(textMove('Answer', 'answer', 'Send answer', (answer) => act('task-answer-input', { questionId: q.id, answer })()));
  }
  if (has('send-back')) forms.push(textMove('Note for the Bot', 'note', 'Send back', (note) => act('task-send-back', { note })()));
  if (has('edit')) forms.push(editForm(task, act));
  const forBot = forTheBot(task, has, act);
  if (has('cancel')) {
    const confirm = h('div', { class: 'w-confirm', hidden: true }, h('span', {}, 'Cancel this task for good? '),
      h('button', { type: 'button', class: 'danger', onclick: (e) => attempt(scope, e.currentTarget, act('task-cancel')) }, 'Yes, cancel task'),
      h('button', { type: 'button', onclick: () => { confirm.hidden = true; ask.hidden = false; ask.focus(); } }, 'Keep it'));
    const ask = h('button', { type: 'button', class: 'danger', onclick: () => { ask.hidden = true; confirm.hidden = false; confirm.querySelector('button').focus(); } }, 'Cancel task');
    parts.push(ask, confirm);
  }
  replace(scope, alertLine(), forms, parts.length ? h('div', { class: 'w-move-row' }, parts) : null, forBot);
  return scope;
}

/** The cards whose "Move it for the Bot" fold is open, by id. */
const openFolds = new Set();

/**
 * Claim, start and return: the Bot makes them itself, and the host also takes them from the card's requester (#54),
 * so a row offers them where the host does; drawn apart and folded, as moves made for the Bot.
 */
function forTheBot(task, has, act) {
  const buttons = [];
  if (has('claim')) buttons.push(h('button', { type: 'button', onclick: (e) => attempt(e.currentTarget.closest('details'), e.currentTarget, act('task-accept')) }, 'Claim for the Bot'));
  if (has('start')) buttons.push(h('button', { type: 'button', onclick: (e) => attempt(e.currentTarget.closest('details'), e.currentTarget, act('task-start')) }, 'Start for the Bot'));
  const ret = has('return') ? textMove('Result summary', 'summary', 'Return the result', (summary) => act('task-return', { summary })()) : null;
  if (!buttons.length && !ret) return null;
  // The detail is drawn anew after each move: a fold the person opened stays open for the next one.
  return h(
    'details',
    { class: 'w-for-bot', open: openFolds.has(task.id) || null, ontoggle: (e) => (e.currentTarget.open ? openFolds.add(task.id) : openFolds.delete(task.id)) },
    h('summary', {}, 'Move it for the Bot'),
    h('p', { class: 'muted' }, 'The Bot makes these moves itself; make one here when it cannot.'),
    alertLine(),
    buttons.length ? h('div', { class: 'w-move-row' }, buttons) : null,
    ret,
  );
}

/** A finished card's one move: archive it off the Done column (issue 31). */
function archiveMove(task, api, done) {
  const scope = h('div', { class: 'w-moves' });
  replace(
    scope,
    alertLine(),
    h('p', { class: 'muted' }, 'Archiving takes the card off the Done column; Show all finished still lists it.'),
    h('div', { class: 'w-move-row' }, h('button', {
      type: 'button',
      onclick: (e) => attempt(scope, e.currentTarget, async () => {
        await api.call('task-archive', { id: task.id });
        await done();
      }),
    }, 'Archive card')),
  );
  return scope;
}

/** What the Bot does next on a card it still works, said once above the person's moves. */
function botsTurn(task, state) {
  const bot = botName(state, task.botId, task.ownerBotName);
  if (task.status === 'open' || task.status === 'claimed') return `${bot} picks this card up and starts it; its progress shows here.`;
  if (task.status === 'working') return `${bot} is working on it and returns a result here.`;
  return null;
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
  const offered = (task.moves || []).length > 0;
  const doing = botsTurn(task, state);
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
    isDone(task)
      ? h(
        'section',
        { class: 'w-block' },
        h('p', { class: 'muted' }, `This card is ${(STATUS_LABEL[task.status] || task.status).toLowerCase()}${task.archivedAt ? ' and archived' : ''}; nothing moves it again.`),
        (task.moves || []).includes('archive') ? archiveMove(task, api, onMoved) : null,
      )
      : h(
        'section',
        { class: 'w-block' },
        h('h3', {}, 'Moves'),
        doing ? h('p', { class: 'muted w-bots-turn' }, doing) : null,
        offered ? moves(task, api, onMoved) : h('p', { class: 'muted' }, 'Nothing on this card is yours to change.'),
      ),
  );
}
