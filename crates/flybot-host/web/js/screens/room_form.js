// New room (#/rooms/new): a name, the member Bots (this person's own and granted Bots) and an optional notice; a refusal shows beside its field.

import { h, replace } from '../dom.js';
import { field, alertLine, attempt } from '../work/ui.js';

/** The Bots this person may seat in a room: the ones whose chat is theirs (own or granted), not retired. */
export function seatableBots(state) {
  return (state?.bots || []).filter((b) => b.sessionId && !b.hidden && !b.retired && !b.run);
}

/** A checkbox group labelled `legend` with an error line, found by showRefusal through data-field. */
export function botChoices(legend, bots, chosen, name = 'members') {
  const error = h('p', { class: 'w-field-error', id: `${name}-choices-error`, hidden: true });
  const boxes = bots.map((b) =>
    h('label', { class: 'check' }, h('input', { type: 'checkbox', value: b.id, checked: chosen.includes(b.id), 'aria-describedby': error.id }), b.name),
  );
  const element = h(
    'div',
    { class: 'w-field', dataset: { field: name } },
    h('fieldset', { class: 'w-choices' }, h('legend', {}, legend), bots.length ? boxes : h('p', { class: 'muted' }, 'You have no Bots yet; make one with New Bot first.')),
    error,
  );
  const value = () => boxes.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
  return { element, value };
}

export async function show(main, ctx) {
  const state = ctx.team.state;
  const nameBox = h('input', { name: 'name', autocomplete: 'off', required: true });
  const members = botChoices('Member Bots', seatableBots(state), []);
  const notice = h('textarea', { name: 'notice', rows: 3 });
  const save = h('button', { type: 'submit', class: 'primary' }, 'Create room');
  const form = h(
    'form',
    { novalidate: true, class: 'w-room-form', 'aria-labelledby': 'room-form-title' },
    alertLine(),
    field('Name', nameBox, { name: 'name' }),
    members.element,
    field('Standing notice', notice, { name: 'notice', hint: 'Optional: every member reads it at the top of its turn.' }),
    h('div', { class: 'actions' }, save, h('a', { class: 'button', href: '#/' }, 'Cancel')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const answer = await attempt(form, save, () =>
      ctx.api.call('create-room', {
        name: nameBox.value,
        members: members.value(),
        ...(notice.value.trim() ? { notice: notice.value.trim() } : {}),
      }),
    );
    if (!answer) return;
    await ctx.team.refresh();
    ctx.navigate(`#/room/${answer.room.id}`);
  });
  replace(main, h('h1', { id: 'room-form-title' }, 'New room'), h('p', { class: 'muted' }, 'A room puts Bots together: a line that names them (@Name, or @all) gives each its turn to speak.'), form);
  nameBox.focus();
}
