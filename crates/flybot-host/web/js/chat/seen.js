// Unread per Bot: localStorage keeps the newest seq the person saw in each chat; memory keeps the newest seq the Bot wrote.

const KEY = 'flybot.seen.';
const newest = new Map();
const listeners = new Set();

function read(botId) {
  try {
    const value = Number(localStorage.getItem(KEY + botId));
    return Number.isFinite(value) ? value : 0;
  } catch {
    return 0;
  }
}

function changed(botId) {
  for (const fn of listeners) fn(botId);
}

/** Whether the Bot wrote something the person has not seen yet. */
export function unread(botId) {
  return (newest.get(botId) || 0) > read(botId);
}

/** Whether this browser keeps a seen mark for the Bot yet. */
export function known(botId) {
  try {
    return localStorage.getItem(KEY + botId) !== null;
  } catch {
    return true;
  }
}

/** The chat showed everything up to `seq`. */
export function markSeen(botId, seq) {
  if (seq > read(botId)) {
    try {
      localStorage.setItem(KEY + botId, String(seq));
    } catch {}
  }
  if ((newest.get(botId) || 0) < seq) newest.set(botId, seq);
  changed(botId);
}

/** Notes the transcript entries fetched for `botId` (any screen may). */
export function noteEntries(botId, entries) {
  let top = newest.get(botId) || 0;
  for (const entry of entries) {
    if (entry.kind !== 'user' && entry.kind !== 'event' && entry.seq > top) top = entry.seq;
  }
  if (top !== (newest.get(botId) || 0)) {
    newest.set(botId, top);
    changed(botId);
  }
}

/** Calls `fn(botId)` when a Bot's unread state may have moved. */
export function onSeen(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
