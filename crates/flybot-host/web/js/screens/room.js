// A room (#/room/<id>): who speaks now, the round's lines, a composer with @mentions and the question dock (#550), Stop, the notice and members (#50, #130, #1267).

import { busyAcks } from '../chat/busy_ack.js';
import { showLine } from '../chat/found_line.js';
import { h, replace, coalesce, when, plural } from '../dom.js';
import { readable } from '../work/text.js';
import { markdown } from '../chat/markdown.js';
import { eventNumber } from '../live.js';
import { composer } from '../work/composer.js';
import { questionDock } from '../work/question_dock.js';
import { attachmentTray, attachmentsNode } from '../chat/attachments.js';
import { drawPeople, nameOf } from '../work/room_people.js';
import { drawShare, sharedLabel } from '../work/room_share.js';
import { drawLinks } from '../work/room_links.js';
import { drawFace, faceLabel, markHeld } from '../work/room_face.js';
import { alertLine, showRefusal, clearRefusal, markTyped, redrawKeeping } from '../work/ui.js';

/** Lines a room shows at first and per "Load earlier": read from the log's end. */
const ROOM_PAGE = 100;
const KIND_LABEL = { claim: 'claimed a card', event: 'room' };

export async function show(main, ctx, { roomId, line = 0 }) {
  const { api, live, team } = ctx;
  main.className = 'w-main-room';
  const roomOf = () => team.state?.rooms.find((r) => r.id === roomId) || null;
  if (!roomOf()) await team.refresh().catch(() => {});
  if (!roomOf()) {
    replace(main, h('section', { class: 'w-screen' }, h('h1', {}, 'Room not found'), h('p', {}, 'This room does not exist or is not shared with you.')));
    return null;
  }

  let last = null;
  let first = null; // the oldest seq shown: "Load earlier" pages back from it
  let running = false;
  let speaking = null;
  let disposed = false;
  let drawn = '';
  const drafts = new Map(); // sessionId → draft element
  // Until the first read of the room (again after a reconnect), pieces wait here: the host's draft starts the line.
  let reading = true;
  let heard = [];

  const heading = h('h1', { class: 'w-title' });
  const status = h('p', { class: 'w-room-status', role: 'status' });
  const stop = h('button', { type: 'button', class: 'w-stop', disabled: true, onclick: () => stopRound() }, 'Stop round');
  const peopleToggle = h('button', { type: 'button', class: 'w-people-toggle', 'aria-expanded': 'false', 'aria-controls': `people-${roomId}` }, 'Members');
  const lines = h('ol', { class: 'w-lines' });
  const older = h('button', { type: 'button', class: 'older', hidden: true, onclick: () => loadEarlier() }, 'Load earlier');
  const empty = h('p', { class: 'muted w-empty' }, 'No lines yet. Write the first one below; @all calls everyone.');
  const streaming = h('div', { class: 'w-drafts', 'aria-live': 'polite' });
  const acks = h('div', { class: 'w-drafts' });
  const log = h('div', { class: 'w-log', role: 'log', 'aria-label': 'Room lines', tabindex: '0' }, older, empty, lines, streaming, acks);
  const side = h('aside', { class: 'w-room-side', id: `people-${roomId}`, 'aria-label': 'Members and notice' });
  const errors = alertLine();
  const dock = questionDock(ctx, roomId);
  const tray = attachmentTray({ api, onError: (message) => showRefusal(errors.parentElement, { message }) });
  const box = composer({
    members: () => (roomOf()?.members || []).map((id) => ({ id, name: botName(id) })),
    onSend: async (text) => {
      clearRefusal(errors.parentElement);
      try {
        const attachments = await tray.take();
        await api.call('send', { roomId, text, ...(attachments.length ? { attachments } : {}) });
        load();
        return true;
      } catch (error) {
        showRefusal(errors.parentElement, error);
        return false;
      }
    },
  });

  tray.bindPaste(box.element);
  tray.bindDrop(log);
  tray.bindDrop(box.element);

  markTyped(side);
  side.addEventListener('w-settled', () => drawHead());
  peopleToggle.addEventListener('click', () => {
    const open = peopleToggle.getAttribute('aria-expanded') !== 'true';
    peopleToggle.setAttribute('aria-expanded', String(open));
    side.classList.toggle('w-open', open);
  });

  const botName = (id) => nameOf(team.state, id);

  function seatOf(sessionId) {
    const room = roomOf();
    if (!room) return null;
    return Object.entries(room.sessions || {}).find(([, s]) => s === sessionId)?.[0] || null;
  }

  function lineRow(line) {
    const kind = line.authorKind === 'system' || line.kind === 'event' ? 'event' : line.kind;
    return h(
      'li',
      { class: `w-line w-line-${kind} w-author-${line.authorKind}`, dataset: { seq: line.seq } },
      h(
        'div',
        { class: 'w-line-head' },
        h('span', { class: 'w-line-author' }, line.authorKind === 'system' ? 'Room' : line.author),
        KIND_LABEL[line.kind] && line.authorKind !== 'system' ? h('span', { class: 'muted' }, KIND_LABEL[line.kind]) : null,
        h('time', { class: 'muted', datetime: new Date(line.at).toISOString() }, when(line.at)),
      ),
      lineText(line),
      line.attachments?.length ? attachmentsNode(line.attachments, api) : null,
    );
  }

  /** A Bot's line is drawn as markdown; a person's and the room's own lines stay as written. */
  function lineText(line) {
    if (line.kind === 'chat' && (line.authorKind === 'local-bot' || line.authorKind === 'remote-bot')) {
      const md = markdown(readable(line.text));
      md.classList.add('w-line-text');
      return md;
    }
    return h('p', { class: 'w-line-text' }, readable(line.text));
  }

  function drawHead() {
    const room = roomOf();
    if (!room) return;
    heading.textContent = room.name;
    // A face-to-face room counts the Bots of every home in it, not only this home's (issue 34).
    const count = room.members.length + (room.origin === 'face-to-face' ? (room.participants || []).filter((p) => p.kind === 'remote-bot' && p.leftSeq == null).length : 0);
    const round = speaking
      ? `${botName(speaking)} is speaking.`
      : running
        ? 'A round is running.'
        : `No round running · ${plural(count, 'member')}.`;
    // #553: a Bot running work this room handed out (work.bots[id].fromRoomId) works for this room.
    const handed = Object.entries(team.state.work?.bots || {}).filter(([, w]) => w.fromRoomId === roomId).map(([id]) => botName(id));
    const shared = sharedLabel(room) || faceLabel(room);
    status.textContent = (shared ? `${shared} · ` : '') + (handed.length ? `${round} ${handed.join(', ')} ${handed.length > 1 ? 'are' : 'is'} working on what this room handed over.` : round);
    stop.disabled = !running;
    markHeld(lines, room);
    const key = JSON.stringify([room, speaking, team.state.bots.map((b) => [b.id, b.name, b.retired])]);
    if (key === drawn) return;
    // An open delete question stays until answered; the panel redraws at the next change after it.
    if (side.querySelector('.confirm')) return;
    // An answer awaited in the panel holds the redraw, so its refusal lands in the form on screen.
    if (side.querySelector('[data-busy]')) return;
    drawn = key;
    // A redraw (a line, a new speaker) keeps what the person is typing in the panel, the focus and a refusal.
    redrawKeeping(side, () => {
      // A face-to-face room's members are the server's: its own panel lists the homes.
      if (room.origin === 'face-to-face') side.replaceChildren();
      else drawPeople(side, {
        api,
        state: team.state,
        room,
        speaking,
        onChanged: () => team.refresh(),
        onDeleted: async () => {
          await team.refresh().catch(() => {});
          ctx.navigate('#/');
        },
      });
      drawShare(side, { api, state: team.state, room, onChanged: () => team.refresh() });
      drawLinks(side, { api, state: team.state, room });
      drawFace(side, { api, state: team.state, room, onChanged: () => team.refresh() });
    });
  }

  const load = coalesce(async () => {
    try {
      // Opened at a search hit: from a little before its line on; else the newest page.
      const opening = line ? { after: Math.max(0, line - 10) } : { limit: ROOM_PAGE };
      const answer = await api.call('messages', { roomId, ...(last === null ? opening : { after: last }) });
      if (disposed) return;
      if (last === null) older.hidden = !answer.earlier && !(line > 10);
      if (first === null) first = answer.messages[0]?.seq ?? null;
      const fresh = answer.messages.filter((l) => last === null || l.seq > last);
      const nearBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
      for (const line of fresh) {
        lines.append(lineRow(line));
        last = Math.max(last ?? 0, line.seq);
        const seat = line.authorKind === 'local-bot' ? roomOf()?.sessions?.[line.authorId] : null;
        if (seat) dropDraft(seat);
      }
      empty.hidden = lines.childElementCount > 0;
      running = answer.running;
      speaking = answer.speaking;
      if (reading) takeDraft(answer);
      if (!running) for (const id of [...drafts.keys()]) dropDraft(id);
      drawHead();
      if (fresh.length && (nearBottom || last === fresh.at(-1)?.seq)) log.scrollTop = log.scrollHeight;
    } catch (error) {
      if (!disposed) showRefusal(errors.parentElement, error);
    }
  }, () => disposed);

  /** "Load earlier": the page of lines before the first one shown, kept in place on the screen. */
  async function loadEarlier() {
    older.disabled = true;
    try {
      const answer = await api.call('messages', { roomId, before: first, limit: ROOM_PAGE });
      const page = answer.messages || [];
      const height = log.scrollHeight;
      lines.prepend(...page.map(lineRow));
      log.scrollTop += log.scrollHeight - height;
      if (page.length) first = page[0].seq;
      older.hidden = !answer.earlier;
    } catch (error) {
      if (!disposed) showRefusal(errors.parentElement, error);
    } finally {
      older.disabled = false;
    }
  }

  /** The speaking member's line so far, from its start, then the pieces heard after the host's `at`. */
  function takeDraft(answer) {
    reading = false;
    const pieces = heard;
    heard = [];
    const session = answer.speaking ? roomOf()?.sessions?.[answer.speaking] : null;
    const at = answer.draft ? eventNumber(answer.draft.at) : null;
    if (session && answer.draft) {
      dropDraft(session);
      grow(session, answer.draft.text).dataset.at = answer.draft.at;
    }
    for (const piece of pieces) {
      if (at && piece.id && piece.d.sessionId === session && piece.id.epoch === at.epoch && piece.id.n <= at.n) continue;
      delta(piece.d, piece.raw);
    }
  }

  function dropDraft(sessionId) {
    drafts.get(sessionId)?.remove();
    drafts.delete(sessionId);
  }

  function delta(d, raw) {
    const { sessionId, text } = d;
    const seat = seatOf(sessionId);
    if (!seat || !text) return;
    const id = eventNumber(raw?.lastEventId);
    if (reading) {
      heard.push({ d, raw, id });
      return;
    }
    const at = eventNumber(drafts.get(sessionId)?.dataset.at);
    // A piece the host's draft already held.
    if (at && id && id.epoch === at.epoch && id.n <= at.n) return;
    grow(sessionId, text);
  }

  /** Adds `text` to the member's line being written, drawn as markdown once a frame. */
  function grow(sessionId, text) {
    const seat = seatOf(sessionId);
    let draft = drafts.get(sessionId);
    if (!draft) {
      draft = h(
        'div',
        { class: 'w-line w-draft' },
        h('div', { class: 'w-line-head' }, h('span', { class: 'w-line-author' }, botName(seat)), h('span', { class: 'muted' }, 'writing…')),
        h('div', { class: 'w-line-text md' }),
      );
      draft.dataset.text = '';
      drafts.set(sessionId, draft);
      streaming.append(draft);
    }
    draft.dataset.text += text;
    // Drawn as markdown once a frame, however many pieces came in it.
    if (draft.dataset.frame) return;
    draft.dataset.frame = '1';
    requestAnimationFrame(() => {
      delete draft.dataset.frame;
      const md = markdown(readable(draft.dataset.text));
      md.classList.add('w-line-text');
      draft.querySelector('.w-line-text').replaceWith(md);
      if (log.scrollHeight - log.scrollTop - log.clientHeight < 120) log.scrollTop = log.scrollHeight;
    });
    return draft;
  }

  async function stopRound() {
    stop.disabled = true;
    clearRefusal(errors.parentElement);
    const who = speaking ? botName(speaking) : null;
    try {
      try {
        // The whole round, when the host has the endpoint (asked of the lead).
        await api.call('room-stop', { roomId });
        status.textContent = 'Stopping the round…';
      } catch (error) {
        if (error.code !== 'bot/unknown-endpoint') throw error;
        // #1267: a line that is only a stop word cancels the speaking turn; nothing it said is posted.
        await api.call('send', { roomId, text: 'stop' });
        status.textContent = who ? `Stopped ${who}'s turn.` : 'Stop sent.';
      }
      load();
    } catch (error) {
      showRefusal(errors.parentElement, error);
      stop.disabled = !running;
    }
  }

  function reload() {
    last = null;
    reading = true;
    replace(lines);
    for (const id of [...drafts.keys()]) dropDraft(id);
    load();
  }

  // Escape stops the round, wherever the focus is on this screen (an open dialog, the menu or the mention list
  // closes instead).
  const onKey = (event) => {
    if (event.key !== 'Escape' || stop.disabled || event.defaultPrevented) return;
    if (document.querySelector('dialog[open]') || event.target.closest?.('nav, [role="listbox"]')) return;
    event.preventDefault();
    stopRound();
  };
  document.addEventListener('keydown', onKey);

  const offs = [
    live.on('room.line', (d) => d.roomId === roomId && load()),
    live.on('round.ended', (d) => d.roomId === roomId && load()),
    live.on('work', (d) => seatOf(d.sessionId) && load()),
    live.on('turn.ended', (d) => seatOf(d.sessionId) && load().then(() => dropDraft(d.sessionId))),
    live.on('room.speaking', (d) => {
      if (d.roomId !== roomId) return;
      speaking = d.botId || null;
      if (speaking) running = true;
      drawHead();
    }),
    live.on('text.delta', delta),
    ...busyAcks(live, { mine: (d) => d.roomId === roomId, who: (d) => botName(d.botId) }, acks, (change) => change()),
    live.on('resync', reload),
    live.on('reconnected', reload),
    team.onChange(() => drawHead()),
    dock.off,
  ];

  replace(
    main,
    h(
      'section',
      { class: 'w-screen w-room', 'aria-labelledby': 'room-title' },
      h('header', { class: 'w-head' }, h('div', { class: 'w-head-text' }, heading, status), h('div', { class: 'w-head-actions' }, peopleToggle, stop)),
      h('div', { class: 'w-room-body' }, h('div', { class: 'w-room-main' }, log, h('div', { class: 'w-composer-wrap' }, dock.element, errors, tray.element, box.element)), side),
    ),
  );
  heading.id = 'room-title';
  drawHead();
  await load();
  log.scrollTop = log.scrollHeight;
  if (line) showLine(log, line);

  return () => {
    disposed = true;
    document.removeEventListener('keydown', onKey);
    for (const off of offs) off();
  };
}
