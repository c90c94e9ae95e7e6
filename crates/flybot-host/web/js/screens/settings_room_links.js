// Settings, Join a room by link (issue 34, #876, #884, #1176): the invitee's side. Paste a link, read what it leads to (the room's name, its lead Bot, who invites, open or withdrawn: room-invite-preview), pick which of your Bots to bring, and Join (room-invite-ask). The inviting home seats exactly those Bots and the room then appears in your sidebar; until then the link says it is asked, and a claim it refused says why.

import { h, replace } from '../dom.js';

const REFUSED = {
  unclaimed: 'the inviting home found no claim of yours',
  'claimed-elsewhere': 'the claim named another home',
  'wrong-room': 'the link belongs to another room',
  expired: 'the link was out of date',
  revoked: 'the link was withdrawn',
  'not-addable': 'those Bots could not be seated there',
};

/** What a preview says, in a sentence. */
function summary(p) {
  if (p.joined) return `You are in “${p.roomName}”: it is in your sidebar.`;
  if (p.refused) return `${p.inviterName} did not seat your Bots: ${REFUSED[p.refused] || p.refused}.`;
  if (p.status !== 'open') return `This link was ${p.status === 'expired' ? 'out of date' : 'withdrawn'}; ask ${p.inviterName} for a new one.`;
  if (p.claimed) return `Asked to join “${p.roomName}”; waiting for ${p.inviterName}'s home to seat your Bots.`;
  return `“${p.roomName}”, led by ${p.leadName}, from ${p.inviterName} (${p.inviter}).`;
}

/** The form: link, Preview, then the Bots and Join. */
export function joinByLink(ctx) {
  const link = h('input', { id: 'room-link', name: 'room-link', autocomplete: 'off', spellcheck: 'false', placeholder: 'https://…/r/<Bot>/<ticket>' });
  // A pasted link and its preview are the person's work: a redraw of Settings keeps them.
  link.addEventListener('input', () => (link.dataset.work = 'typed'));
  const error = h('p', { class: 'form-error', role: 'alert' });
  const found = h('div', { class: 'room-link-preview', 'aria-live': 'polite' });
  const preview = h('button', { type: 'submit' }, 'Preview');
  const form = h(
    'form',
    { class: 'connector-form', 'aria-label': 'Join a room by link' },
    h('div', { class: 'field' }, h('label', { for: 'room-link' }, 'Room invite link'), h('p', { class: 'hint' }, 'A link someone gave you to their room; you join with Bots of your own.'), link),
    h('div', { class: 'actions' }, preview),
    error,
    found,
  );
  async function run(button, work) {
    error.textContent = '';
    button.disabled = true;
    try {
      await work();
    } catch (refusal) {
      error.textContent = refusal.message;
    } finally {
      button.disabled = false;
    }
  }
  function show(p) {
    const bots = (ctx.team.state.bots || []).filter((b) => !b.retired && !b.remote && b.sessionId);
    const boxes = bots.map((b) => h('label', { class: 'room-link-bot' }, h('input', { type: 'checkbox', value: b.id }), ` ${b.name}`));
    const join = h('button', { type: 'button', class: 'primary' }, 'Join');
    join.addEventListener('click', () =>
      run(join, async () => {
        const picked = boxes.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
        show(await ctx.api.call('room-invite-ask', { link: link.value.trim(), bots: picked }));
        await ctx.team.refresh();
      }),
    );
    const canJoin = p.status === 'open' && !p.claimed && !p.joined;
    found.dataset.work = 'preview';
    replace(
      found,
      h('p', { class: 'room-link-summary' }, summary(p)),
      canJoin ? h('fieldset', {}, h('legend', {}, 'Bring these Bots'), ...boxes) : null,
      canJoin ? h('div', { class: 'actions' }, join) : null,
    );
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(preview, async () => show(await ctx.api.call('room-invite-preview', { link: link.value.trim() })));
  });
  return form;
}
