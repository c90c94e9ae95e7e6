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
    if (lost) emit('reconnected', {});
    lost = false;
  });
  source.addEventListener('error', () => {
    lost = true;
    emit('status', { live: false });
  });
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
