// A room's side panel: the notice (#894), members in speaking order, admin and task lead (#1182), changed through `update-room`.

import { h, replace } from '../dom.js';
import { attempt, field, alertLine, select } from './ui.js';

/** The Bot that divides the room's board (core tasks::roles::task_lead). */
function taskLead(room) {
  const picked = room.taskLead && room.members.includes(room.taskLead) ? room.taskLead : null;
  return picked || room.admin || null;
}

/** A Bot's or person's name in `state`, else the id. */
export function nameOf(state, id) {
  return state.bots.find((b) => b.id === id)?.name || state.members.find((m) => m.id === id)?.name || id;
}

/** Whether this person may change `room` (core access::may_manage_room: its owner). */
export function mayManage(state, room) {
  const me = state?.actor?.memberId;
  return !me || room.ownerId === me;
}

/** Draws the panel into `el` for `room` with `speaking` (a Bot id or null); `onDeleted` runs after the room is deleted. */
export function drawPeople(el, { api, state, room, speaking, onChanged, onDeleted }) {
  const manage = mayManage(state, room);
  const lead = taskLead(room);
  const update = (scope, button, body) =>
    attempt(scope, button, async () => {
      await api.call('update-room', { id: room.id, ...body });
      await onChanged();
    });

  const list = h('ul', { class: 'w-people' });
  for (const id of room.members) {
    const name = nameOf(state, id);
    const badges = [
      id === speaking ? h('span', { class: 'w-badge w-badge-live' }, 'speaking') : null,
      id === room.admin ? h('span', { class: 'w-badge' }, 'admin') : null,
      id === lead ? h('span', { class: 'w-badge' }, 'task lead') : null,
    ];
    const row = h('li', { class: 'w-person' });
    const actions = !manage ? null : h(
      'div',
      { class: 'w-person-actions' },
      id === room.admin
        ? h('button', { type: 'button', class: 'w-quiet', onclick: (e) => update(row, e.currentTarget, { admin: '' }) }, 'Clear admin')
        : h('button', { type: 'button', class: 'w-quiet', onclick: (e) => update(row, e.currentTarget, { admin: id }) }, 'Make admin', h('span', { class: 'sr-only' }, ` for ${name}`)),
      id === lead
        ? null
        : h('button', { type: 'button', class: 'w-quiet', onclick: (e) => update(row, e.currentTarget, { taskLead: id }) }, 'Make lead', h('span', { class: 'sr-only' }, ` for ${name}`)),
      h(
        'button',
        {
          type: 'button',
          class: 'w-quiet danger',
          onclick: (e) => update(row, e.currentTarget, { members: room.members.filter((m) => m !== id), ...(room.admin === id ? { admin: '' } : {}) }),
        },
        'Remove',
        h('span', { class: 'sr-only' }, ` ${name}`),
      ),
    );
    replace(row, h('div', { class: 'w-person-line' }, h('span', { class: 'w-person-name' }, name), ...badges), actions, manage ? alertLine() : null);
    list.append(row);
  }
  for (const p of room.participants || []) {
    if (p.kind === 'human') list.append(h('li', { class: 'w-person' }, h('div', { class: 'w-person-line' }, h('span', { class: 'w-person-name' }, nameOf(state, p.memberId)), h('span', { class: 'w-badge' }, 'person'))));
  }

  const others = state.bots.filter((b) => !room.members.includes(b.id) && !b.retired);
  const pick = select([['', 'Choose a Bot'], ...others.map((b) => [b.id, b.name])], '', { name: 'members' });
  const addForm = h('form', {
    class: 'w-inline-form',
    onsubmit: (event) => {
      event.preventDefault();
      if (!pick.value) return;
      update(addForm, addForm.querySelector('button'), { members: [...room.members, pick.value] });
    },
  });
  replace(addForm, field('Add a member', pick, { name: 'members' }), h('button', { type: 'submit' }, 'Add member'), alertLine());

  const notice = h('textarea', { rows: 3, name: 'notice' });
  notice.value = room.notice || '';
  const noticeForm = h('form', {
    class: 'w-notice-form',
    onsubmit: (event) => {
      event.preventDefault();
      update(noticeForm, noticeForm.querySelector('button'), { notice: notice.value.trim() });
    },
  });
  replace(
    noticeForm,
    field('Standing notice', notice, { name: 'notice', hint: 'Every member reads it at the top of its turn.' }),
    h('button', { type: 'submit' }, 'Save notice'),
    alertLine(),
  );

  if (!manage) {
    replace(
      el,
      h('h2', { class: 'w-side-title' }, 'Members'),
      list,
      room.notice ? [h('h2', { class: 'w-side-title' }, 'Standing notice'), h('p', { class: 'w-notice' }, room.notice)] : null,
      h('p', { class: 'muted' }, 'Only the room’s owner changes its name, members and notice.'),
    );
    return;
  }

  const nameBox = h('input', { name: 'name', autocomplete: 'off', value: room.name });
  const renameForm = h('form', {
    class: 'w-inline-form',
    onsubmit: (event) => {
      event.preventDefault();
      update(renameForm, renameForm.querySelector('button'), { name: nameBox.value });
    },
  });
  replace(renameForm, field('Room name', nameBox, { name: 'name' }), h('button', { type: 'submit' }, 'Rename'), alertLine());

  replace(
    el,
    h('h2', { class: 'w-side-title' }, 'Members'),
    list,
    others.length ? addForm : h('p', { class: 'muted' }, 'Every Bot you have is in this room.'),
    noticeForm,
    h('h2', { class: 'w-side-title' }, 'This room'),
    renameForm,
    deleteArea(api, room, onDeleted),
  );
}

/** Delete room, asked first; the question says what stays. */
function deleteArea(api, room, onDeleted) {
  const area = h('div', { class: 'w-delete-room' });
  const ask = h('button', { type: 'button', class: 'danger' }, 'Delete room');
  ask.addEventListener('click', () => {
    const yes = h('button', { type: 'button', class: 'danger primary' }, `Delete ${room.name}`);
    const no = h('button', { type: 'button' }, 'Keep it');
    const error = alertLine();
    const id = `confirm-delete-${room.id}`;
    const confirm = h(
      'div',
      { class: 'confirm', role: 'alertdialog', 'aria-labelledby': id },
      h('p', { id }, h('strong', {}, `Delete the room ${room.name}?`), ' Its Bots stay on your team with their own chats, and its lines stay in the home folder’s room log; sharing given only for this room ends. The room leaves the sidebar and cannot be opened again.'),
      h('div', { class: 'actions' }, yes, no),
      error,
    );
    no.addEventListener('click', () => {
      confirm.remove();
      ask.hidden = false;
      ask.focus();
    });
    yes.addEventListener('click', async () => {
      const done = await attempt(confirm, yes, () => api.call('delete-room', { id: room.id }));
      if (done) await onDeleted?.();
    });
    ask.hidden = true;
    area.append(confirm);
    no.focus();
  });
  area.append(ask);
  return area;
}
