// What waits on this person (`approvals {}`): tool approvals (#540), held sends (#754, kind "held-send", fromBot) and sends to friends' homes a Bot's policy held (#52, issue 33: `friendHolds`, kind "friend-hold", answered by `social-hold-answer`).

import * as api from '../api.js';
import * as live from '../live.js';
import { team } from '../team.js';

let list = [];
let timer = null;
let started = false;
const listeners = new Set();

async function load() {
  try {
    const answer = await api.call('approvals', {});
    list = [...(answer.approvals || []), ...(answer.friendHolds || [])];
  } catch {
    return;
  }
  for (const fn of listeners) fn(list);
}

/** Reloads soon (several triggers in a burst make one request). */
export function reload(delay = 150) {
  clearTimeout(timer);
  timer = setTimeout(load, delay);
}

function start() {
  if (started) return;
  started = true;
  for (const name of ['approval.asked', 'approval.answered', 'reconnected', 'resync']) live.on(name, () => reload(0));
  team.onChange(() => reload());
  load();
}

/** The waiting list now. */
export function waiting() {
  return list;
}

/** The Bot an approval belongs to: a tool approval's Bot, a held send's sender. */
export function botOf(approval) {
  return approval.botId || approval.fromBot || null;
}

/** Whether an approval is a held send (#754) rather than a tool approval. */
export function isHeldSend(approval) {
  return approval.kind === 'held-send';
}

/** Whether an approval is a send to a friend's home held by its Bot's policy (#52). */
export function isFriendHold(approval) {
  return approval.kind === 'friend-hold';
}

/** Calls `fn(list)` after each reload; returns the unsubscribe. */
export function onApprovals(fn) {
  start();
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Answers one: "allowed-once", "rejected", "always-bot" or "always-room". */
export async function answer(id, verdict) {
  const held = list.find((a) => a.id === id);
  const result =
    held && isFriendHold(held)
      ? await api.call('social-hold-answer', { id, send: verdict === 'allowed-once' })
      : await api.call('approval-answer', { id, answer: verdict });
  list = list.filter((a) => a.id !== id);
  for (const fn of listeners) fn(list);
  reload();
  return result;
}
