// The page's one live stream: GET /api/bot/live (server-sent events).

const handlers = new Map();
let source = null;

/** Calls `fn(data, event)` for each event named `name`; returns the unsubscribe. */
export function on(name, fn) {
  if (!handlers.has(name)) {
    handlers.set(name, new Set());
    if (source) listen(name);
  }
  handlers.get(name).add(fn);
  return () => handlers.get(name)?.delete(fn);
}

function emit(name, data, event) {
  for (const fn of handlers.get(name) || []) {
    try {
      fn(data, event);
    } catch (error) {
      console.error(`live: a ${name} handler failed`, error);
    }
  }
}

function listen(name) {
  source.addEventListener(name, (event) => {
    let data = {};
    try {
      data = JSON.parse(event.data);
    } catch {
      return;
    }
    emit(name, data, event);
  });
}

/** Opens the stream (once); `status` events say 'live' or 'reconnecting'. */
export function start() {
  if (source) return;
  source = new EventSource('/api/bot/live', { withCredentials: true });
  for (const name of handlers.keys()) listen(name);
  for (const name of ['hello', 'resync']) if (!handlers.has(name)) { handlers.set(name, new Set()); listen(name); }
  let lost = false;
  source.addEventListener('open', () => {
    emit('status', { live: true });
    if (lost) clearUnreachable();
    if (lost) emit('reconnected', {});
    lost = false;
  });
  source.addEventListener('error', () => {
    lost = true;
    emit('status', { live: false });
  });
}

/** The host answers again: every "cannot be reached" sentence a screen shows (marked `data-unreachable`) goes. */
function clearUnreachable() {
  for (const el of document.querySelectorAll('[data-unreachable]')) {
    el.textContent = '';
    if (el.classList.contains('w-alert')) el.hidden = true;
    delete el.dataset.unreachable;
  }
}

/** The number of a live event's id (`<epoch>.<n>`), with its epoch: deltas after a draft's `at` are the ones it lacks. */
export function eventNumber(id) {
  const at = String(id || '').lastIndexOf('.');
  if (at < 0) return null;
  const n = Number(id.slice(at + 1));
  return Number.isFinite(n) ? { epoch: id.slice(0, at), n } : null;
}

/** Whether the stream is open right now (for an indicator drawn late). */
export function isLive() {
  return source?.readyState === 1;
}

/** Closes the stream (sign-out). */
export function stop() {
  source?.close();
  source = null;
}
