// Face-to-face rooms (#/face, issue 34, #83): make one on the Matrix server with some of your Bots (its six-digit number is what the other homes type), join one by its number, and the rooms you left (Past rooms, #171) with Open and Join again.

import { h, replace, when } from '../dom.js';
import { field, alertLine, attempt, select } from '../work/ui.js';
import { botChoices, seatableBots } from './room_form.js';
import { faceRooms } from '../work/room_face.js';

export async function show(main, ctx) {
  await ctx.team.refresh().catch(() => {});
  const state = ctx.team.state;
  const mine = seatableBots(state);
  const { open, past } = faceRooms(state);

  const nameBox = h('input', { name: 'name', autocomplete: 'off', placeholder: 'Optional: the number and the people name it' });
  const bring = botChoices('Your Bots in the room', mine, [], 'bots');
  const lead = select([['', 'No lead'], ...mine.map((b) => [b.id, b.name])], '', { name: 'lead' });
  const make = h('button', { type: 'submit', class: 'primary' }, 'Create room');
  const createForm = h(
    'form',
    { novalidate: true, class: 'w-room-form', 'aria-label': 'Create a face-to-face room' },
    alertLine(),
    field('Name', nameBox, { name: 'name' }),
    bring.element,
    field('Lead', lead, { name: 'lead', hint: 'The Bot that plans and hands out parts; it answers a plain line first.' }),
    h('div', { class: 'actions' }, make),
  );
  createForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const answer = await attempt(createForm, make, () =>
      ctx.api.call('face-room-create', { name: nameBox.value, bots: bring.value(), ...(lead.value ? { lead: lead.value } : {}) }),
    );
    if (!answer) return;
    await ctx.team.refresh();
    ctx.navigate(`#/room/${answer.room.id}`);
  });

  const codeBox = h('input', { name: 'code', autocomplete: 'off', inputmode: 'numeric', placeholder: '123456' });
  const joinBots = botChoices('Your Bots in the room', mine, [], 'join-bots');
  const join = h('button', { type: 'submit', class: 'primary' }, 'Join room');
  const joinForm = h(
    'form',
    { novalidate: true, class: 'w-room-form', 'aria-label': 'Join a face-to-face room' },
    alertLine(),
    field('Room number', codeBox, { name: 'code', hint: 'Six digits; add :server for a room on another homeserver.' }),
    joinBots.element,
    h('div', { class: 'actions' }, join),
  );
  joinForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const answer = await attempt(joinForm, join, () => ctx.api.call('face-room-join', { code: codeBox.value, bots: joinBots.value() }));
    if (!answer) return;
    await ctx.team.refresh();
    ctx.navigate(`#/room/${answer.room.id}`);
  });

  const row = (room, action) =>
    h(
      'li',
      { class: 'w-face-row' },
      h('a', { href: `#/room/${room.id}` }, room.name),
      h('span', { class: 'muted' }, ` · No. ${room.face.code || '—'} · ${when(room.updatedAt)}`),
      action,
    );
  const rejoin = (room) => {
    const button = h('button', { type: 'button' }, 'Join again', h('span', { class: 'sr-only' }, ` ${room.name}`));
    button.addEventListener('click', () =>
      attempt(pastList, button, async () => {
        await ctx.api.call('face-room-join', { roomId: room.id, bots: room.members || [] });
        await ctx.team.refresh();
        ctx.navigate(`#/room/${room.id}`);
      }),
    );
    return button;
  };
  const openList = h('ul', { class: 'w-face-list', 'aria-label': 'Open face-to-face rooms' }, open.map((r) => row(r, null)));
  const pastList = h('section', { 'aria-label': 'Past rooms' }, alertLine(), h('ul', { class: 'w-face-list' }, past.map((r) => row(r, rejoin(r)))));

  replace(
    main,
    h('h1', {}, 'Face-to-face rooms'),
    h('p', { class: 'muted' }, 'A room on your Matrix server where people of several homes meet with their Bots. Your own line goes to everyone; your Bots answer when you @name them, and they answer the other people\'s lines.'),
    h('div', { class: 'w-face-forms' }, h('section', {}, h('h2', {}, 'Create'), createForm), h('section', {}, h('h2', {}, 'Join'), joinForm)),
    h('h2', {}, 'Open rooms'),
    open.length ? openList : h('p', { class: 'muted' }, 'No face-to-face room is open.'),
    h('h2', {}, 'Past rooms'),
    past.length ? pastList : h('p', { class: 'muted' }, 'Rooms you leave stay here with their lines.'),
  );
}
