// The "New task" form: `task-create {botId, title, roomId?, priority?, note?, target?}` (#54, #1058, #1154) (#48).

import { h, replace } from '../dom.js';
import { attempt, field, alertLine, select } from './ui.js';

/** The form; `onCreated(task)` runs after the card was recorded. */
export function taskForm({ api, state, botId = '', roomId = '', onCreated }) {
  const bots = (state?.bots || []).filter((b) => !b.retired);
  const bot = select([['', 'Choose a Bot'], ...bots.map((b) => [b.id, b.name])], botId, { name: 'botId', required: true });
  const title = h('input', { type: 'text', name: 'title', required: true, maxlength: '200', autocomplete: 'off' });
  const room = select([['', 'No room'], ...(state?.rooms || []).map((r) => [r.id, r.name])], roomId, { name: 'roomId' });
  const priority = select([['urgent', 'Urgent'], ['high', 'High'], ['normal', 'Normal'], ['low', 'Low']], 'normal', { name: 'priority' });
  const note = h('textarea', { rows: 3, name: 'note' });
  const target = h('input', { type: 'text', name: 'target', autocomplete: 'off', placeholder: 'owner/repo#12' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create task');
  const form = h('form', {
    class: 'w-task-form',
    onsubmit: (event) => {
      event.preventDefault();
      attempt(form, submit, async () => {
        const body = { botId: bot.value, title: title.value.trim(), priority: priority.value };
        if (room.value) body.roomId = room.value;
        if (note.value.trim()) body.note = note.value.trim();
        if (target.value.trim()) body.target = target.value.trim();
        const answer = await api.call('task-create', body);
        await onCreated(answer.task);
      });
    },
  });
  replace(
    form,
    alertLine(),
    field('Bot', bot, { name: 'botId' }),
    field('Title', title, { name: 'title' }),
    h('div', { class: 'w-form-pair' }, field('Priority', priority, { name: 'priority' }), field('Room', room, { name: 'roomId' })),
    field('Note', note, { name: 'note', hint: 'The first step, or what the Bot should know.' }),
    field('Target (optional)', target, { name: 'target', hint: 'A GitHub issue or pull request: https://github.com/owner/repo/issues/12 or owner/repo#12.' }),
    h('div', { class: 'w-move-row' }, submit),
  );
  return form;
}
