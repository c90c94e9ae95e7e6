// Browser notifications (the `notifications` preference): a Bot's turn that ended while the page was in the background (#353).

import { team } from '../team.js';

let known = null;

/** Asks the browser for permission (from the person's own click). */
export function ask() {
  if (globalThis.Notification?.permission === 'default') Notification.requestPermission().catch(() => {});
}

/** Starts watching the ended turns. */
export function watch() {
  team.onChange((state) => {
    const ended = state.work?.ended || [];
    const fresh = known ? ended.filter((t) => !known.has(t.id)) : [];
    known = new Set(ended.map((t) => t.id));
    if (!document.hidden || state.prefs?.notifications === false || globalThis.Notification?.permission !== 'granted') return;
    for (const turn of fresh) {
      const bot = (state.bots || []).find((b) => b.id === turn.botId);
      if (bot) new Notification(turn.failed ? `${bot.name}'s turn failed` : `${bot.name} answered`, { body: turn.failed || '', tag: turn.id });
    }
  });
}
