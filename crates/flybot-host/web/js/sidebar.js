// The sidebar: the search box, places, Main Bots, Bots and rooms, friends' Bots (friends_sidebar.js), each row with its badges (busy, waiting, unread, failed), and the offline notice.

import { h, replace } from './dom.js';
import { team } from './team.js';
import * as seen from './chat/seen.js';
import * as approvals from './chat/approvals.js';
import * as notify from './chat/notify.js';
import { friendsSection } from './friends_sidebar.js';

const CHECK_AT_START = 60;

/** Input waits this person answers (#207): the cards whose moves, as the host decides them, include the answer (issue 31). */
export function inputWaits(state) {
  return (state?.tasks || []).filter((t) => (t.moves || []).includes('answer'));
}

function openBotId() {
  const match = location.hash.match(/^#\/bot\/([^/]+)(?:\/line\/\d+)?$/);
  return match ? match[1] : null;
}

function lastEnded(state, botId) {
  let last = null;
  for (const turn of state.work?.ended || []) {
    if (turn.botId === botId && (!last || turn.at >= last.at)) last = turn;
  }
  return last;
}

function badges(state, bot, waitingBots) {
  const out = [];
  if (state.work?.bots?.[bot.id]) out.push(['busy', 'busy', 'A turn is running']);
  if (waitingBots.has(bot.id)) out.push(['waiting', 'waiting', 'Waits for your answer']);
  if (bot.id !== openBotId() && seen.unread(bot.id)) out.push(['unread', 'new', 'Unread lines']);
  if (lastEnded(state, bot.id)?.failed) out.push(['failed', 'failed', 'Its last turn failed']);
  return out;
}

function row(href, name, marks) {
  const link = h('a', { href }, h('span', { class: 'row-name' }, name));
  for (const [kind, text, title] of marks) {
    link.append(h('span', { class: `badge ${kind}`, title }, h('span', { 'aria-hidden': 'true' }, text), h('span', { class: 'sr-only' }, `, ${title.toLowerCase()}`)));
  }
  return link;
}

/** Keeps `list`'s rows equal to `items` ([href, name, marks]), reusing rows. */
function sync(list, items, empty) {
  const current = new Map([...list.children].map((li) => [li.dataset.href, li]));
  const keep = new Set();
  let previous = null;
  for (const [href, name, marks] of items) {
    keep.add(href);
    let li = current.get(href);
    const key = JSON.stringify([name, marks]);
    if (!li) {
      li = h('li', { dataset: { href } });
    }
    if (li.dataset.key !== key) {
      const hadFocus = li.contains(document.activeElement);
      replace(li, row(href, name, marks));
      li.dataset.key = key;
      if (hadFocus) li.firstChild.focus();
    }
    const link = li.firstChild;
    if (location.hash === href) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
    const next = previous ? previous.nextSibling : list.firstChild;
    if (next !== li) list.insertBefore(li, next);
    previous = li;
  }
  for (const [href, li] of current) if (!keep.has(href)) li.remove();
  if (!items.length && empty) list.replaceChildren(h('li', { class: 'empty' }, empty));
}

function offlineNotice() {
  return h(
    'p',
    { class: 'notice' },
    h('strong', {}, 'Offline model. '),
    'Your Bots answer with the built-in mock. To use a real model, add a provider in ',
    h('a', { href: '#/settings' }, 'Settings → Models'),
    ', then pick its model for a Bot.',
  );
}

/** The search box: its words open the search screen (#/search?q=…). */
function searchBox(ctx) {
  const input = h('input', { type: 'search', name: 'search', 'aria-label': 'Search chats and rooms', placeholder: 'Search chats and rooms', autocomplete: 'off' });
  return h(
    'form',
    {
      role: 'search',
      class: 'side-search',
      onsubmit: (event) => {
        event.preventDefault();
        const words = input.value.trim();
        if (words) ctx.navigate(`#/search?q=${encodeURIComponent(words)}`);
      },
    },
    input,
  );
}

/** Draws the sidebar into `nav` (`conn`: the connection indicator) and keeps it current. */
export function draw(nav, ctx, conn, phoneNotice = null) {
  const notice = h('div');
  const mainList = h('ul');
  const botList = h('ul');
  const roomList = h('ul');
  const places = h('ul');
  // The places come first so Inbox stays in reach on a team of 100 Bots.
  nav.replaceChildren(
    h('div', { class: 'brand' }, h('strong', {}, 'FlyBot'), conn),
    searchBox(ctx),
    notice,
    h('div', { class: 'places' }, places),
    h('a', { class: 'button primary new-bot', href: '#/bots/new' }, 'New Bot'),
    h('h2', {}, 'Main Bots'),
    mainList,
    h('h2', {}, 'Bots'),
    botList,
    h('div', { class: 'side-head' }, h('h2', {}, 'Rooms'), h('a', { class: 'button side-add', href: '#/rooms/new' }, 'New room'), h('a', { class: 'button side-add', href: '#/face' }, 'Face-to-face')),
    roomList,
    friendsSection(ctx),
  );

  const unreadRooms = new Set();
  const busyRooms = new Set();
  let offlineShown = null;

  const redraw = () => {
    const state = team.state;
    if (!state) return;
    const shown = `${Boolean(state.model?.offline)}:${state.readOnly?.message || ''}`;
    if (offlineShown !== shown) {
      offlineShown = shown;
      notice.replaceChildren(
        ...(state.readOnly?.message ? [h('p', { class: 'notice', role: 'status' }, state.readOnly.message)] : []),
        ...(state.model?.offline ? [offlineNotice()] : []),
      );
      // At phone width the sidebar folds behind Menu: a short notice stays above the screen.
      phoneNotice?.replaceChildren(
        ...(state.readOnly?.message ? [h('p', { class: 'notice' }, state.readOnly.message)] : []),
        ...(state.model?.offline ? [h('p', { class: 'notice' }, h('strong', {}, 'Offline model. '), 'Your Bots answer with the built-in mock; Menu has the details.')] : []),
      );
    }
    const waiting = approvals.waiting();
    const waitingBots = new Set(waiting.map(approvals.botOf));
    const mainIds = state.mainBotIds || [];
    // A chat per Bot whose own chat is yours: another member's Bot comes without its sessionId (#53).
    const bots = (state.bots || []).filter((b) => b.sessionId && !b.hidden && !b.retired);
    const byId = new Map(bots.map((b) => [b.id, b]));
    const item = (bot) => [`#/bot/${bot.id}`, bot.name, badges(state, bot, waitingBots)];
    sync(mainList, mainIds.map((id) => byId.get(id)).filter(Boolean).map(item), 'No Main Bot yet.');
    sync(botList, bots.filter((b) => !mainIds.includes(b.id)).map(item), 'No other Bots yet.');
    sync(
      roomList,
      (state.rooms || []).map((room) => [
        `#/room/${room.id}`,
        room.name,
        [
          room.sharedFrom && ['shared', 'shared', `Shared room from ${room.sharedFrom.inviterName}`],
          room.face && (room.face.status === 'open' ? ['face', 'face', 'Face-to-face room'] : ['past', 'past', 'Past face-to-face room']),
          busyRooms.has(room.id) && ['busy', 'busy', 'A round is running'],
          unreadRooms.has(room.id) && ['unread', 'new', 'New lines'],
        ].filter(Boolean),
      ]),
      'No rooms yet.',
    );
    const count = waiting.length + inputWaits(state).length;
    sync(places, [
      ['#/inbox', 'Inbox', count ? [['count', String(count), `${count} waiting`]] : []],
      ['#/board', 'Board', []],
      ['#/workflows', 'Workflows', []],
      ['#/schedules', 'Schedules', []],
      ['#/usage', 'Usage', []],
      ['#/settings', 'Settings', []],
    ]);
  };

  // Unread: ask each Bot's chat for its newest line only (`last` is the newest seq).
  const peek = (botId, start = false) =>
    ctx.api
      .call('messages', { botId, limit: 1 })
      // At start, a browser's first sight of a Bot sets the mark: old lines are not news.
      .then((a) => (!start || seen.known(botId) ? seen.noteEntries(botId, a.messages || []) : seen.markSeen(botId, a.last || 0)))
      .catch(() => {});
  const checking = new Map();
  const check = (botId) => {
    clearTimeout(checking.get(botId));
    checking.set(botId, setTimeout(() => (checking.delete(botId), botId !== openBotId() && peek(botId)), 400));
  };
  const botOfSession = (sessionId) => (team.state?.bots || []).find((b) => b.sessionId === sessionId)?.id;
  // The state view's work (busy) moves without a revision: a turn that starts reloads it once, soon.
  let busyTimer = null;
  // A room is busy from its seats' first work until its round ends.
  const roomOfSession = (sessionId) => (team.state?.rooms || []).find((r) => Object.values(r.sessions || {}).includes(sessionId))?.id;
  ctx.live.on('round.ended', ({ roomId }) => busyRooms.delete(roomId) && redraw());
  ctx.live.on('work', ({ sessionId }) => {
    const botId = botOfSession(sessionId);
    const roomId = !botId && roomOfSession(sessionId);
    if (roomId && !busyRooms.has(roomId)) {
      busyRooms.add(roomId);
      redraw();
    }
    if (!botId) return;
    check(botId);
    if (!team.state?.work?.bots?.[botId] && !busyTimer) {
      busyTimer = setTimeout(() => {
        busyTimer = null;
        team.refresh().catch(() => {});
      }, 250);
    }
  });
  ctx.live.on('room.line', ({ roomId }) => {
    if (location.hash.match(/^#\/room\/([^/]+)/)?.[1] !== roomId) {
      unreadRooms.add(roomId);
      redraw();
    }
  });
  window.addEventListener('hashchange', () => {
    const room = location.hash.match(/^#\/room\/([^/]+)(?:\/line\/\d+)?$/);
    if (room) unreadRooms.delete(room[1]);
    redraw();
  });

  team.onChange(redraw);
  notify.watch();
  approvals.onApprovals(redraw);
  seen.onSeen(redraw);
  redraw();
  (async () => {
    const bots = (team.state?.bots || []).slice(0, CHECK_AT_START);
    for (let i = 0; i < bots.length; i += 4) await Promise.all(bots.slice(i, i + 4).map((b) => peek(b.id, true)));
  })();
}
