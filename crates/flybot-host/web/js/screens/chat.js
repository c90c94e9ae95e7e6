// A Bot's chat (#/bot/<id>): paged history, the streaming answer, tool rows (#546), approval cards (#540), Stop, failed turns (#1347).

import { h, replace, coalesce } from '../dom.js';
import { entryNode, attachResult } from '../chat/transcript.js';
import { markdown } from '../chat/markdown.js';
import { approvalCard } from '../chat/approval_card.js';
import { composer } from '../chat/composer.js';
import { attachmentTray, attachmentsNode } from '../chat/attachments.js';
import * as approvals from '../chat/approvals.js';
import * as seen from '../chat/seen.js';
import { busyAcks } from '../chat/busy_ack.js';
import { eventNumber } from '../live.js';
import { showLine } from '../chat/found_line.js';

const PAGE = 80;

export async function show(main, ctx, { botId, line = 0 }) {
  const state = ctx.team.state;
  const bot = () => (ctx.team.state?.bots || []).find((b) => b.id === botId);
  if (!bot()) {
    replace(main, h('h1', {}, 'No such Bot'), h('p', {}, 'This Bot does not exist or is not yours to see.'), h('a', { href: '#/bots/new' }, 'New Bot'));
    return;
  }
  const names = {
    me: state.actor?.memberId,
    bot: (id) => (ctx.team.state?.bots || []).find((b) => b.id === id)?.name,
    member: (id) => (ctx.team.state?.members || []).find((m) => m.id === id)?.name,
    self: () => bot()?.name || 'Bot',
  };

  const title = h('h1', {}, bot().name);
  const model = h('span', { class: 'model' });
  const stop = h('button', { type: 'button', class: 'danger', hidden: true }, 'Stop');
  const fresh = h('button', { type: 'button' }, 'New conversation');
  const head = h(
    'div',
    { class: 'chat-head' },
    title,
    model,
    stop,
    fresh,
    h('a', { class: 'button', href: `#/bot/${botId}/conversations` }, 'Past conversations'),
    h('a', { class: 'button', href: `#/bot/${botId}/memory` }, 'Memory'),
    h('a', { class: 'button', href: `#/bot/${botId}/edit` }, 'Edit Bot'),
  );
  const older = h('button', { type: 'button', class: 'older', hidden: true }, 'Load earlier');
  const lines = h('div', { class: 'lines' });
  const inner = h('div', { class: 'log-inner' });
  const pending = h('div', { class: 'log-inner' });
  const streaming = h('div', { class: 'log-inner', 'aria-live': 'polite' });
  const working = h('p', { class: 'working', role: 'status' });
  const cards = h('div', { class: 'log-inner' });
  const acks = h('div', { class: 'log-inner' });
  const empty = h('p', { class: 'muted' }, `This is the start of your chat with ${bot().name}.`);
  inner.append(older, empty, lines);
  const log = h('div', { class: 'log', role: 'log', 'aria-label': `Chat with ${bot().name}`, tabindex: '0' }, inner, pending, streaming, acks, h('div', { class: 'log-inner' }, working), cards);
  const tray = attachmentTray({ api: ctx.api, onError: (message) => (working.textContent = message) });
  const input = composer({
    placeholder: `Write to ${bot().name}…`,
    onSend: async (text) => {
      const attachments = await tray.take();
      // Taken at once: the line shows from Enter, waiting through the settle window (#642) with Stop.
      const line = h('div', { class: 'msg user pending' }, h('span', { class: 'who' }, 'You'), text, h('span', { class: 'pending-state' }, 'waiting for more lines…'));
      line.dataset.text = text.trim();
      keepBottom(() => pending.append(line), true);
      showRunning();
      try {
        const sent = await ctx.api.call('send', { botId, text, ...(attachments.length ? { attachments } : {}) });
        // A line sent while a turn runs goes to that turn, not to a new one.
        if (sent.queued && sent.queued !== 'held') line.lastChild.textContent = 'the Bot reads it at its next step';
      } catch (refusal) {
        line.remove();
        showRunning();
        throw refusal;
      }
    },
  });
  main.className = 'main-chat';
  tray.bindPaste(input.element);
  tray.bindDrop(log);
  tray.bindDrop(input.element);
  replace(main, head, log, tray.element, input.element);

  let gone = false;
  let first = true;
  let firstSeq = 0;
  let last = 0;
  let running = false;
  const calls = new Map();
  const stream = { text: '', node: null };
  // Per turn: the text streamed (text.delta) and the text its log entries hold.
  const turns = new Map();
  const turnOf = (id) => {
    // `deltas`: the pieces with their live ids, so a draft read from the host (as of `at`) takes only the later ones.
    if (!turns.has(id)) turns.set(id, { streamed: '', logged: '', ended: false, deltas: [], at: null });
    return turns.get(id);
  };
  let draftTurn = null;

  const atBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 48;
  function keepBottom(change, force = false) {
    const stay = force || atBottom();
    change();
    if (stay) log.scrollTop = log.scrollHeight;
  }

  const nodeFor = (entry) => {
    if (entry.kind === 'tool-result' && calls.has(entry.toolCallId)) {
      attachResult(calls.get(entry.toolCallId), entry);
      return null;
    }
    if (entry.kind === 'turn-end') {
      // A call the turn ended without running (stopped, rejected, failed).
      for (const row of calls.values()) {
        const state = row.querySelector('.tool-state');
        if (row.dataset.turn === entry.turnId && state.textContent === ' · running') state.textContent = ' · not run';
      }
    }
    // The same card's wake again, with nothing said since: still one line (issue 31).
    if (entry.kind === 'event' && lines.lastElementChild?.dataset.event === entry.text) return null;
    const node = entryNode(entry, names);
    if (node && entry.kind === 'tool-call') calls.set(entry.toolCallId, node);
    if (node && entry.attachments?.length) node.append(attachmentsNode(entry.attachments, ctx.api));
    if (node) actionsFor(entry, node);
    return node;
  };

  // Per-message actions: Copy on each line and answer, Retry on a failed turn (its lines sent again), Edit on the
  // person's last line (the edited text is sent as a new line; the earlier one stays, as the Bot saw it).
  const sentIn = new Map(); // turnId → the person's lines of that turn
  const copyButton = (text, label) => {
    const button = h('button', { type: 'button', class: 'link msg-action', 'aria-label': label }, 'Copy');
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(text);
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Copy failed';
      }
      setTimeout(() => (button.textContent = 'Copy'), 1500);
    });
    return button;
  };
  const actionsFor = (entry, node) => {
    if (entry.kind === 'user' || entry.kind === 'assistant') {
      if (entry.kind === 'user' && entry.turnId && node.classList.contains('own')) {
        if (!sentIn.has(entry.turnId)) sentIn.set(entry.turnId, []);
        sentIn.get(entry.turnId).push(entry.text || '');
      }
      node.dataset.text = entry.text || '';
      node.append(h('span', { class: 'msg-actions' }, copyButton(entry.text || '', entry.kind === 'user' ? 'Copy this line' : 'Copy this answer')));
    }
    if (entry.kind === 'turn-end' && node.classList.contains('failed') && sentIn.has(entry.turnId)) {
      const text = sentIn.get(entry.turnId).join('\n');
      const retry = h('button', { type: 'button', class: 'msg-action' }, 'Retry');
      retry.addEventListener('click', async () => {
        retry.disabled = true;
        try {
          await input.send(text);
          retry.remove();
        } catch {
          retry.disabled = false;
        }
      });
      node.append(' ', retry);
    }
  };
  // Edit is offered on the person's last line only, and not while a turn runs.
  const offerEdit = () => {
    for (const old of lines.querySelectorAll('.edit-line')) old.remove();
    const mine = [...lines.querySelectorAll('.msg.user.own')].at(-1);
    const lastLine = [...lines.querySelectorAll('.msg')].at(-1);
    if (!mine || stop.hidden === false || (lastLine && lastLine !== mine && !lastLine.classList.contains('assistant'))) return;
    const edit = h('button', { type: 'button', class: 'link msg-action edit-line', 'aria-label': 'Edit your last line and send it again' }, 'Edit');
    edit.addEventListener('click', () => input.edit(mine.dataset.text || ''));
    mine.querySelector('.msg-actions')?.append(edit);
  };

  // "Load earlier": the page of lines before the first one shown.
  older.addEventListener('click', async () => {
    older.disabled = true;
    try {
      const answer = await ctx.api.call('messages', { botId, before: firstSeq, limit: PAGE });
      const page = answer.messages || [];
      const before = log.scrollHeight;
      lines.prepend(...page.map(nodeFor).filter(Boolean));
      log.scrollTop += log.scrollHeight - before;
      if (page.length) firstSeq = page[0].seq;
      older.hidden = !answer.earlier;
    } catch (refusal) {
      working.textContent = refusal.message;
    } finally {
      older.disabled = false;
    }
    if (older.hidden) log.focus();
  });

  const setStream = (text) => {
    stream.text = text;
    if (!text) {
      stream.node?.remove();
      stream.node = null;
      return;
    }
    if (!stream.node) {
      stream.node = h('div', { class: 'msg assistant streaming' }, h('span', { class: 'who' }, names.self()), markdown(''));
      streaming.append(stream.node);
    }
    // The answer so far is drawn as markdown once a frame, however many pieces came in it.
    if (stream.frame) return;
    stream.frame = requestAnimationFrame(() => {
      stream.frame = null;
      if (stream.node) keepBottom(() => stream.node.lastChild.replaceWith(markdown(stream.text)));
    });
  };
  const drawDraft = () => {
    const t = draftTurn && turns.get(draftTurn);
    setStream(t && !t.ended && t.streamed.length > t.logged.length ? t.streamed.slice(t.logged.length) : '');
  };

  const roomName = (id) => ctx.team.state?.rooms?.find((r) => r.id === id)?.name || id;
  const showRunning = () => {
    const work = ctx.team.state?.work?.bots?.[botId];
    const held = pending.childElementCount > 0;
    const now = running || Boolean(work) || held;
    stop.hidden = !now;
    // A running turn belongs to this conversation: a new one starts after it.
    fresh.disabled = now;
    if (!now) working.textContent = '';
    else if (held && !running && !work) working.textContent = 'Waiting for more lines; the turn starts in a moment.';
    else if (work?.fromRoomId) working.textContent = `Working on what the room ${roomName(work.fromRoomId)} handed over${work.step ? `: ${work.step}` : '…'}`;
    else if (!stream.text) working.textContent = work?.step ? `Working: ${work.step}` : 'Working…';
    else working.textContent = '';
  };

  const add = (fresh) => {
    keepBottom(() => {
      lines.append(...fresh.map(nodeFor).filter(Boolean));
      empty.hidden = empty.hidden || fresh.length > 0;
      for (const entry of fresh) {
        if (entry.kind === 'user') {
          const match = [...pending.children].find((p) => p.dataset.text === (entry.text || '').trim());
          (match || null)?.remove();
        }
        if (entry.turnId && entry.kind === 'assistant') turnOf(entry.turnId).logged += entry.text || '';
        if (entry.turnId && entry.kind === 'turn-end') {
          const turn = turnOf(entry.turnId);
          turn.ended = true;
          turn.deltas = [];
          if (entry.reason?.kind === 'aborted') markStopped(entry.turnId);
        }
      }
      drawDraft();
      showRunning();
      offerEdit();
    });
  };

  const fetchNew = coalesce(async () => {
    try {
      // Opened at a search hit: from a little before its line on.
      const opening = line ? { botId, after: Math.max(0, line - 10) } : { botId, limit: PAGE };
      const answer = await ctx.api.call('messages', first ? opening : { botId, after: last });
      if (gone) return;
      const fresh = (answer.messages || []).filter((m) => m.seq > last);
      if (first) {
        first = false;
        firstSeq = fresh[0]?.seq || 0;
        older.hidden = !answer.earlier && !(line > 10);
        empty.hidden = Boolean(answer.earlier) || line > 10;
      }
      last = Math.max(last, answer.last || 0);
      running = answer.running;
      if (answer.draft) takeDraft(answer.draft);
      seen.noteEntries(botId, fresh);
      add(fresh);
      seen.markSeen(botId, last);
    } catch (refusal) {
      if (gone) return;
      working.textContent = refusal.message;
      if (refusal.code === 'bot/unreachable') working.dataset.unreachable = '1';
    }
  }, () => gone);

  // A page that opens mid-answer: the text from the turn's start, then the pieces numbered after it.
  const takeDraft = (draft) => {
    const turn = turnOf(draft.turnId);
    if (turn.ended) return;
    const at = eventNumber(draft.at);
    const later = turn.deltas.filter((d) => at && d.id && d.id.epoch === at.epoch && d.id.n > at.n);
    turn.streamed = draft.text + later.map((d) => d.text).join('');
    turn.at = at;
    draftTurn = draft.turnId;
  };

  const drawCards = (list) => {
    const mine = list.filter((a) => approvals.botOf(a) === botId);
    const have = new Set([...cards.children].map((c) => c.dataset.approval));
    const want = new Set(mine.map((a) => a.id));
    for (const card of [...cards.children]) if (!want.has(card.dataset.approval) && !card.dataset.settled) card.remove();
    keepBottom(() => {
      for (const approval of mine) if (!have.has(approval.id)) cards.append(approvalCard(approval, names));
    });
  };

  const drawHead = () => {
    const b = bot();
    if (!b) return;
    title.textContent = b.name;
    model.textContent = `Model: ${b.model}`;
    showRunning();
  };

  const sessionId = bot().sessionId;
  const offs = [
    ctx.live.on('work', (event) => event.sessionId === sessionId && fetchNew()),
    ctx.live.on('turn.ended', (event) => {
      if (event.sessionId !== sessionId) return;
      running = false;
      turnOf(event.turnId).ended = true;
      drawDraft();
      fetchNew();
    }),
    ctx.live.on('text.delta', (event, raw) => {
      if (event.sessionId !== sessionId) return;
      const turn = turnOf(event.turnId);
      if (turn.ended) return;
      const id = eventNumber(raw?.lastEventId);
      // A piece the draft already holds.
      if (id && turn.at && id.epoch === turn.at.epoch && id.n <= turn.at.n) return;
      turn.deltas.push({ id, text: event.text || '' });
      turn.streamed += event.text || '';
      // Before the first read of the chat, the draft from the host starts the answer (no text from mid-sentence).
      if (first) return;
      keepBottom(() => {
        draftTurn = event.turnId;
        running = true;
        drawDraft();
        showRunning();
      });
    }),
    ctx.live.on('reconnected', () => fetchNew()),
    ctx.live.on('resync', () => fetchNew()),
    ctx.team.onChange(drawHead),
    approvals.onApprovals(drawCards),
    ...busyAcks(ctx.live, { mine: (event) => event.sessionId === sessionId }, acks, keepBottom),
  ];
  // A stopped turn's answer stays as far as it came, marked so.
  const markStopped = (turnId) => {
    const kept = [...lines.querySelectorAll('.msg.assistant')].filter((m) => m.dataset.turn === turnId).at(-1);
    if (!kept || kept.classList.contains('stopped')) return;
    kept.classList.add('stopped');
    kept.append(h('span', { class: 'stopped-mark' }, 'Stopped here'));
  };

  // Escape stops the running turn, wherever the focus is on this screen.
  const onKey = (event) => {
    if (event.key !== 'Escape' || stop.hidden || stop.disabled || event.defaultPrevented) return;
    // Escape in an open dialog, the phone menu or the mention list closes that instead.
    if (document.querySelector('dialog[open]') || event.target.closest?.('nav, [role="listbox"]')) return;
    event.preventDefault();
    stop.click();
  };
  document.addEventListener('keydown', onKey);

  stop.addEventListener('click', async () => {
    stop.disabled = true;
    try {
      const held = [...pending.children];
      const answer = await ctx.api.call('cancel', { botId });
      // Lines stopped before their turn began are not sent: they go back into the box.
      if (answer.dropped && held.length) {
        input.restore(held.map((p) => p.dataset.text).join('\n'));
        for (const p of held) p.remove();
        working.textContent = '';
      }
      running = false;
      if (draftTurn) turnOf(draftTurn).ended = true;
      drawDraft();
    } catch (refusal) {
      working.textContent = refusal.message;
    } finally {
      stop.disabled = false;
      input.focus();
      fetchNew();
    }
  });

  // A fresh conversation: the Bot starts without the earlier lines, which stay under "Past conversations".
  fresh.addEventListener('click', async () => {
    fresh.disabled = true;
    try {
      await ctx.api.call('conversation-new', { botId });
      ctx.navigate(`#/bot/${botId}`);
    } catch (refusal) {
      working.textContent = refusal.message;
      fresh.disabled = false;
    }
  });

  drawHead();
  drawCards(approvals.waiting());
  await fetchNew();
  log.scrollTop = log.scrollHeight;
  if (!line || !showLine(log, line)) input.focus();

  return () => {
    gone = true;
    document.removeEventListener('keydown', onKey);
    for (const off of offs) off();
    main.className = '';
  };
}
