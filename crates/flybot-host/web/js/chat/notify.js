// Browser notifications (the `notifications` preference, and `notify` per kind, #469): while the page is in the background, a Bot's turn that ended (#353), one that failed, and something new that waits on this person's answer (an approval or a held send).

import { team } from '../team.js';
import * as approvals from './approvals.js';

/** The kinds a person turns on and off one by one (`prefs.notify`). */
export const KINDS = [
  ['finished', 'When a Bot answers'],
  ['failed', 'When a Bot\'s turn fails'],
  ['approval', 'When something waits for my answer'],
];

let knownTurns = null;
let knownAsks = null;

/** Asks the browser for permission (from the person's own click). */
export function ask() {
  if (globalThis.Notification?.permission === 'default') Notification.requestPermission().catch(() => {});
}

/** Whether the person wants this kind shown now: all notifications on, this kind not turned off, the page in the background, and the browser allowing it. */
function wanted(kind) {
  const prefs = team.state?.prefs || {};
  if (prefs.notifications === false || prefs.notify?.[kind] === false) return false;
  return document.hidden && globalThis.Notification?.permission === 'granted';
}

function botName(id) {
  return (team.state?.bots || []).find((b) => b.id === id)?.name;
}

function onTurns(state) {
  const ended = state.work?.ended || [];
  const fresh = knownTurns ? ended.filter((t) => !knownTurns.has(t.id)) : [];
  knownTurns = new Set(ended.map((t) => t.id));
  for (const turn of fresh) {
    const name = botName(turn.botId);
    const kind = turn.failed ? 'failed' : 'finished';
    if (name && wanted(kind)) new Notification(turn.failed ? `${name}'s turn failed` : `${name} answered`, { body: turn.failed || '', tag: turn.id });
  }
}

function onAsks(list) {
  const fresh = knownAsks ? list.filter((a) => !knownAsks.has(a.id)) : [];
  knownAsks = new Set(list.map((a) => a.id));
  for (const asked of fresh) {
    const name = botName(approvals.botOf(asked)) || 'A Bot';
    if (wanted('approval')) new Notification(`${name} waits for your answer`, { body: asked.label || asked.text || '', tag: asked.id });
  }
}

/** Starts watching the ended turns and what waits on this person. */
export function watch() {
  team.onChange(onTurns);
  approvals.onApprovals(onAsks);
}
