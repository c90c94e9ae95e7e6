// The page's copy of the state view (GET /api/bot/state), fetched again when the live stream says it moved.

import * as api from './api.js';
import * as live from './live.js';
import { coalesce } from './dom.js';

const listeners = new Set();
let current = null;
const reload = coalesce(async () => {
  current = await api.state();
  for (const fn of listeners) fn(current);
});

export const team = {
  /** The latest state view, or null before the first load. */
  get state() {
    return current;
  },
  /** Reloads the view; concurrent calls share one request and one follow-up. */
  async refresh() {
    await reload();
    return current;
  },
  /** Calls `fn(state)` after each reload; returns the unsubscribe. */
  onChange(fn) {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },
};

/** Follows the live stream: any of these events reloads the view. */
export function follow() {
  // Every revision event reloads, the same number too: a standby that takes
  // over says its revision again (its standing moved, not its team), and a
  // page that showed it read-only must read the view again (issue 35).
  live.on('revision', () => team.refresh().catch(() => {}));
  for (const name of ['resync', 'reconnected', 'turn.ended', 'round.ended']) {
    live.on(name, () => team.refresh().catch(() => {}));
  }
}
