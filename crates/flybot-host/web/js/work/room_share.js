// A room's friends' Bots (issue 34, #825-#949): in a room shared from another home, who invited it ("Shared room from <inviter>", #848) and whether it was left (#1167); the friends' Bots seated here with their owner badge (#904); in the owner's own room, or a room shared from another home shared on (its inviter kept, #883), a friend's Bot added (`room-share-add`) or taken out (`room-share-remove`).

import { h } from '../dom.js';
import { attempt, field, select } from './ui.js';
import { mayManage } from './room_people.js';

/** The live seats of friends' Bots in `room`. */
function remoteSeats(room) {
  return (room.participants || []).filter((p) => p.kind === 'remote-bot' && p.leftSeq == null);
}

/** The line a shared room's page shows under its name, or ''. */
export function sharedLabel(room) {
  const from = room.sharedFrom;
  if (!from) return '';
  const left = from.status === 'left' ? ' · its inviter ended the share' : from.status === 'hidden' ? ' · hidden' : '';
  return `Shared room from ${from.inviterName}${left}`;
}

/** Appends the section to `el` (the room's side panel). */
export function drawShare(el, { api, state, room, onChanged }) {
  const seats = remoteSeats(room);
  // A face-to-face room's seats are drawn by room_face.js, and the server holds its membership.
  if (room.origin === 'face-to-face') return;
  // A room shared from another home may be shared on with a friend's Bot (#883); its inviter's Bots are not this home's to remove.
  const own = mayManage(state, room);
  const mine = (seat) => own && seat.owner !== room.sharedFrom?.home;
  if (!seats.length && !own && !room.sharedFrom) return;
  const list = h(
    'ul',
    { class: 'w-people w-remote-seats' },
    seats.map((seat) =>
      h(
        'li',
        { class: 'w-person' },
        h('span', { class: 'w-person-name' }, seat.name || seat.id),
        h('span', { class: 'badge owner-badge', title: `From ${seat.owner}` }, seat.owner || ''),
        mine(seat)
          ? h(
              'button',
              {
                type: 'button',
                class: 'w-quiet',
                onclick: (e) =>
                  attempt(section, e.currentTarget, async () => {
                    await api.call('room-share-remove', { roomId: room.id, seat: seat.id });
                    await onChanged();
                  }),
              },
              'Remove',
              h('span', { class: 'sr-only' }, ` ${seat.name || seat.id}`),
            )
          : null,
      ),
    ),
  );
  const section = h(
    'section',
    { class: 'w-room-share', 'aria-label': 'Friends\' Bots in this room' },
    h('h2', {}, 'Friends\' Bots'),
    room.sharedFrom ? h('p', { class: 'w-shared-from' }, sharedLabel(room)) : null,
    seats.length ? list : h('p', { class: 'muted' }, 'No friend\'s Bot sits here.'),
  );
  if (own) section.append(addForm(api, room, seats, section, onChanged));
  el.append(section);
}

/** The owner's form: a friend's Bot shared with this home, added to the room. */
function addForm(api, room, seats, section, onChanged) {
  const picker = select([['', 'Loading friends\' Bots…']], '', { name: 'friendBot' });
  const add = h('button', { type: 'button', disabled: true }, 'Add to room');
  const form = h('div', { class: 'w-share-add' }, field('Friend\'s Bot', picker), add);
  api
    .call('social')
    .then((view) => {
      const bots = (view.remoteBots || []).filter((b) => b.shared && !seats.some((s) => s.owner === b.home && s.name === b.title));
      picker.replaceChildren(...(bots.length ? bots.map((b) => h('option', { value: b.roomId }, b.label)) : [h('option', { value: '' }, 'No friend\'s Bot is shared with you')]));
      add.disabled = !bots.length;
    })
    .catch(() => form.remove());
  add.addEventListener('click', () =>
    attempt(section, add, async () => {
      await api.call('room-share-add', { roomId: room.id, friendBot: picker.value });
      await onChanged();
    }),
  );
  return form;
}
