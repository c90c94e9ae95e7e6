// A face-to-face room's side panel (issue 34, #83): its number, every home in it with the person and the Bots each brought (#384: <Bot> (<owner>)), who leads (#476), and Leave or Join again (#171, #1072).

import { h } from '../dom.js';
import { alertLine, attempt, select } from './ui.js';

/** This home's Matrix user id (the `social` view's account), asked once. */
let myHome = null;
function whoAmI(api) {
  myHome ||= api.call('social', {}).then((a) => a.account?.userId || null).catch(() => {
    myHome = null;
    return null;
  });
  return myHome;
}

/** The face-to-face rooms of the state view: open ones, and the ones this home left or that were closed (Past rooms). */
export function faceRooms(state) {
  const all = (state?.rooms || []).filter((r) => r.origin === 'face-to-face' && r.face);
  return { open: all.filter((r) => r.face.status === 'open'), past: all.filter((r) => r.face.status !== 'open') };
}

/** The line a face room's page shows under its name, or ''. */
export function faceLabel(room) {
  if (room.origin !== 'face-to-face' || !room.face) return '';
  const where = room.face.status === 'open' ? '' : room.face.status === 'left' ? ' · you left (Past rooms)' : ' · closed';
  return `Face-to-face room No. ${room.face.code || '—'}${where}`;
}

/** A Bot's look (issue 34): the color and avatar its home gave its seat, else one seeded from its handle, so each Bot of every home reads apart. */
export function lookOf(handle, name, seat) {
  let hash = 0;
  for (const c of String(handle)) hash = (hash * 31 + c.codePointAt(0)) >>> 0;
  const mark = h('span', { class: 'w-look', 'aria-hidden': 'true' }, seat?.avatar || (String(name).trim()[0] || '?').toUpperCase());
  mark.style.backgroundColor = seat?.color || `hsl(${hash % 360}, 55%, 38%)`;
  return mark;
}

/** Appends the section to `el` (the room's side panel). */
export function drawFace(el, { api, state, room, onChanged }) {
  if (room.origin !== 'face-to-face' || !room.face) return;
  const face = room.face;
  const botName = (id) => (state.bots || []).find((b) => b.id === id)?.name || id;
  const homes = Object.entries(face.homes || {}).map(([home, part]) => {
    const seats = room.participants || [];
    const names = (part.bots || []).map((b) => {
      const seat = seats.find((p) => p.id === `${home}/${b.handle}`);
      return h('span', {}, lookOf(b.handle, b.name, seat), ` ${b.name} (${part.ownerName})`);
    });
    const leads = face.lead && face.lead.home === home ? (part.bots || []).find((b) => b.handle === face.lead.handle) : null;
    return h(
      'li',
      { class: `w-person w-face-home${part.status === 'left' ? ' w-left' : ''}` },
      h('span', { class: 'w-person-name' }, part.ownerName),
      h('span', { class: 'badge owner-badge', title: `Home ${home}` }, home),
      part.status === 'left' ? h('span', { class: 'muted' }, ' left') : null,
      names.length ? h('ul', { class: 'w-face-bots' }, names.map((n) => h('li', {}, n))) : h('p', { class: 'muted' }, 'No Bot'),
      leads ? h('p', { class: 'muted' }, `Lead: ${leads.name}`) : null,
    );
  });
  const errors = alertLine();
  const action =
    face.status === 'open'
      ? h('button', { type: 'button', class: 'w-quiet' }, 'Leave room')
      : face.status === 'closed'
        ? h('p', { class: 'muted' }, 'The home that made this room closed it; its lines stay here to read.')
        : h('button', { type: 'button', class: 'primary' }, 'Join again');
  if (face.status !== 'closed') action.addEventListener('click', () =>
    attempt(section, action, async () => {
      if (face.status === 'open') await api.call('face-room-leave', { roomId: room.id });
      else await api.call('face-room-join', { roomId: room.id, bots: room.members || [] });
      await onChanged();
    }),
  );
  const section = h(
    'section',
    { class: 'w-room-face', 'aria-label': 'Face-to-face room' },
    h('h2', {}, 'Face-to-face'),
    h('p', { class: 'w-face-code' }, 'Room number ', h('strong', {}, face.code || '—'), face.status === 'open' ? ' · others join with it' : ''),
    errors,
    h('ul', { class: 'w-people w-face-homes', 'aria-label': 'Homes in this room' }, homes),
    room.members?.length ? h('p', { class: 'muted' }, `Your Bots here: ${room.members.map(botName).join(', ')}`) : null,
    h('div', { class: 'actions' }, action),
  );
  el.append(section);
  if (face.status === 'open' && face.maker) {
    whoAmI(api).then((me) => {
      if (me && me === face.maker) section.append(makerArea({ api, state, room, me, onChanged }));
    });
  }
}

/** #476: the maker's own controls: the room's lead (any Bot in it, of any home) and Close room, asked first. */
function makerArea({ api, state, room, me, onChanged }) {
  const face = room.face;
  const botName = (id) => (state.bots || []).find((b) => b.id === id)?.name || id;
  const remote = (room.participants || []).filter((p) => p.kind === 'remote-bot' && p.leftSeq == null);
  const options = [['', 'No lead'], ...(room.members || []).map((id) => [id, botName(id)]), ...remote.map((p) => [p.id, p.name || p.id])];
  const current = face.lead ? (face.lead.home === me ? face.lead.handle : `${face.lead.home}/${face.lead.handle}`) : '';
  const lead = select(options, current, { name: 'face-lead', 'aria-label': 'Lead of this room' });
  const setLead = h('button', { type: 'button' }, 'Set lead');
  const area = h('div', { class: 'w-face-maker' });
  setLead.addEventListener('click', () =>
    attempt(area, setLead, async () => {
      await api.call('face-room-lead', { roomId: room.id, lead: lead.value || null });
      await onChanged();
    }),
  );
  const close = h('button', { type: 'button', class: 'danger' }, 'Close room');
  close.addEventListener('click', () => {
    const yes = h('button', { type: 'button', class: 'danger primary' }, 'Close it for everyone');
    const no = h('button', { type: 'button' }, 'Keep it open');
    const id = `confirm-close-${room.id}`;
    const confirm = h(
      'div',
      { class: 'confirm', role: 'alertdialog', 'aria-labelledby': id },
      h('p', { id }, h('strong', {}, 'Close this room for every home?'), ' Nobody can write in it any more; every home keeps its lines in Past rooms.'),
      h('div', { class: 'actions' }, yes, no),
      alertLine(),
    );
    no.addEventListener('click', () => {
      confirm.remove();
      close.hidden = false;
      close.focus();
    });
    yes.addEventListener('click', async () => {
      if (!(await attempt(confirm, yes, () => api.call('face-room-close', { roomId: room.id })))) return;
      // An open question holds the panel's redraw: it is answered now.
      confirm.remove();
      await onChanged();
    });
    close.hidden = true;
    area.append(confirm);
    no.focus();
  });
  area.append(
    h('h3', {}, 'You made this room'),
    h('label', { class: 'w-face-lead' }, 'Lead ', lead),
    h('div', { class: 'actions' }, setLead),
    alertLine(),
    h('div', { class: 'actions' }, close),
  );
  return area;
}

const HELD_NOTE = {
  pending: 'Waiting for your approval: not sent to the other homes yet',
  rejected: "Not sent: you chose Don't send",
  failed: 'Not sent: the room ended while it was held',
};

/** #456: marks this home's Bot lines held for the owner (`room.heldLines`) on the room's drawn lines (`li[data-seq]`). */
export function markHeld(linesEl, room) {
  if (room?.origin !== 'face-to-face') return;
  const held = new Map((room.heldLines || []).map((l) => [String(l.seq), l.status]));
  for (const li of linesEl.querySelectorAll('li[data-seq]')) {
    const status = held.get(li.dataset.seq);
    const old = li.querySelector('.w-held');
    if (old?.dataset.status === status) continue;
    old?.remove();
    li.classList.toggle('w-line-held', !!status);
    if (!status) continue;
    const note = h('p', { class: `w-held w-held-${status}`, role: 'status' }, HELD_NOTE[status] || status);
    note.dataset.status = status;
    li.querySelector('.w-line-head')?.after(note);
  }
}
