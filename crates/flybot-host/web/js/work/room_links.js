// A room's invite links (issue 34, #852, #876, #878, #892): in the owner's own room, the open links with a Copy and a Revoke each, how many are open, a new link, Revoke all, and the homes whose claim seated nobody with the reason and the Bots they bring (#1064: a refusal, held for the owner's approval, or not delivered), and Seat them to read the claims again with the tries reset. A room shared from another home has its own invitation and shows none of this.

import { h, plural, replace } from '../dom.js';
import { attempt } from './ui.js';
import { mayManage } from './room_people.js';

/** Why a home's knock seated nobody, in a sentence. */
const REASONS = {
  unclaimed: 'no claim of theirs was found',
  'claimed-elsewhere': 'the claim named another home',
  'wrong-room': 'the link was for another room',
  'lookup-failed': 'the homeserver could not be asked; tried again shortly',
  expired: 'the link was out of date',
  revoked: 'the link was withdrawn',
  'not-addable': 'those Bots cannot be seated here',
  held: 'waiting for your approval; Seat them lets them in',
  'not-delivered': 'the homeserver did not take their invitation after a few tries',
};

/** One waiting home: who, which Bots, and why, in a sentence. */
function waitingLine(home, why) {
  const bots = (why.bots || []).length ? ` (${why.bots.join(', ')})` : '';
  return h('li', { class: 'w-person w-link-wait', 'data-code': why.code }, `${home}${bots}: ${REASONS[why.code] || why.code}`);
}

/** Appends the section to `el` (the room's side panel) for the owner's own room. */
export function drawLinks(el, { api, state, room }) {
  if (room.sharedFrom || room.origin === 'face-to-face' || !mayManage(state, room) || !(room.members || []).length) return;
  const body = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading links…'));
  const section = h('section', { class: 'w-room-links', 'aria-label': 'Invite by link' }, h('h2', {}, 'Invite by link'), body);
  const call = async (endpoint, extra = {}) => draw(await api.call(endpoint, { roomId: room.id, ...extra }));
  function draw(links) {
    const rows = links.links.map((link) =>
      h(
        'li',
        { class: 'w-person w-link' },
        h('input', { class: 'w-link-url', readonly: true, value: link.url, 'aria-label': 'Invite link', onfocus: (e) => e.currentTarget.select() }),
        h(
          'div',
          { class: 'w-person-actions' },
          h('button', { type: 'button', class: 'w-quiet', onclick: (e) => copy(e.currentTarget, link.url) }, 'Copy'),
          h('button', { type: 'button', class: 'w-quiet danger', onclick: (e) => attempt(section, e.currentTarget, () => call('room-invite-revoke', { ticket: link.ticket })) }, 'Revoke'),
          h('span', { class: 'hint' }, Object.keys(link.homes || {}).length ? ` · joined by ${plural(Object.keys(link.homes).length, 'home')}` : ''),
        ),
      ),
    );
    const waiting = Object.entries(links.waiting || {});
    replace(
      body,
      h('p', { class: 'w-link-count' }, links.count ? `${plural(links.count, 'open link')}: anyone you give one to can join with their own Bots, until you revoke it.` : 'No open link.'),
      rows.length ? h('ul', { class: 'w-people w-links' }, rows) : null,
      h(
        'div',
        { class: 'w-person-actions' },
        h('button', { type: 'button', onclick: (e) => attempt(section, e.currentTarget, () => call('room-invite-mint')) }, 'New link'),
        links.count ? h('button', { type: 'button', class: 'w-quiet danger', onclick: (e) => attempt(section, e.currentTarget, () => call('room-invite-revoke')) }, 'Revoke all') : null,
      ),
      waiting.length
        ? h(
            'div',
            { class: 'w-link-waiting' },
            h('p', { class: 'hint' }, 'Asked to join and not seated:'),
            h('ul', { class: 'w-people' }, waiting.map(([home, why]) => waitingLine(home, why))),
            h('button', { type: 'button', class: 'w-quiet', onclick: (e) => attempt(section, e.currentTarget, () => call('room-invite-seat')) }, 'Seat them'),
          )
        : null,
    );
  }
  api
    .call('room-invite', { roomId: room.id })
    .then(draw)
    .catch(() => section.remove());
  el.append(section);
}

/** Copies `text`; the button says so for a moment. */
async function copy(button, text) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Select and copy';
  }
  setTimeout(() => (button.textContent = 'Copy'), 2000);
}
