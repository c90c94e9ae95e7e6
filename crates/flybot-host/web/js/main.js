// The page: signs in when the host asks for it, then draws the sidebar and the screen the address names.

import * as api from './api.js';
import * as live from './live.js';
import { h, replace } from './dom.js';
import { team, follow } from './team.js';
import './theme.js';

const routes = [
  [/^#\/bot\/([^/]+)\/edit$/, 'bot_form', (m) => ({ botId: m[1] })],
  [/^#\/bot\/([^/]+)\/memory$/, 'memory', (m) => ({ botId: m[1] })],
  [/^#\/bot\/([^/]+)\/conversations$/, 'conversations', (m) => ({ botId: m[1] })],
  [/^#\/bot\/([^/]+)\/conversations\/(\d+)$/, 'conversations', (m) => ({ botId: m[1], part: m[2] })],
  [/^#\/bots\/new$/, 'bot_form', () => ({})],
  [/^#\/bot\/([^/]+)$/, 'chat', (m) => ({ botId: m[1] })],
  [/^#\/bot\/([^/]+)\/line\/(\d+)$/, 'chat', (m) => ({ botId: m[1], line: Number(m[2]) })],
  [/^#\/rooms\/new$/, 'room_form', () => ({})],
  [/^#\/face$/, 'face_rooms', () => ({})],
  [/^#\/room\/([^/]+)$/, 'room', (m) => ({ roomId: m[1] })],
  [/^#\/room\/([^/]+)\/line\/(\d+)$/, 'room', (m) => ({ roomId: m[1], line: Number(m[2]) })],
  [/^#\/search(\?.*)?$/, 'search', () => ({})],
  [/^#\/board$/, 'board', () => ({})],
  [/^#\/project\/([^/]+)$/, 'project', (m) => ({ projectId: decodeURIComponent(m[1]) })],
  [/^#\/inbox$/, 'inbox', () => ({})],
  [/^#\/workflows$/, 'workflows', () => ({})],
  [/^#\/workflow\/([^/]+)$/, 'workflows', (m) => ({ workflowId: decodeURIComponent(m[1]) })],
  [/^#\/usage$/, 'usage', () => ({})],
  [/^#\/schedules$/, 'schedules', () => ({})],
  [/^#\/settings$/, 'settings', () => ({})],
  [/^#\/friend\/([^/]+)$/, 'friend', (m) => ({ roomId: decodeURIComponent(m[1]) })],
];

const ctx = {
  api,
  live,
  team,
  h,
  navigate(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
};

let dispose = null;
let routing = Promise.resolve();
let queued = 0;

// Screens draw one at a time, only the newest address: a slow older screen never draws over a newer one.
function route() {
  queued += 1;
  const run = routing.then(() => (--queued ? null : draw()));
  routing = run.catch(() => {});
  return run;
}

let drawnHash = null;

async function draw() {
  const main = document.getElementById('main');
  if (!main) return;
  // A redraw of the address already shown keeps an open question (Delete, Retire): the person answers it first.
  if (location.hash === drawnHash && main.querySelector('.confirm')) return;
  drawnHash = location.hash;
  if (dispose) {
    try {
      dispose();
    } catch {}
    dispose = null;
  }
  let name = 'home';
  let params = {};
  for (const [pattern, screen, read] of routes) {
    const match = location.hash.match(pattern);
    if (match) {
      name = screen;
      params = read(match);
      break;
    }
  }
  const screen = await import(`./screens/${name}.js`);
  // A screen's first load may take a while: if the address moved on meanwhile, the newer one draws next, not this.
  if (location.hash !== drawnHash) return;
  main.className = '';
  dispose = (await screen.show(main, ctx, params)) || null;
}

// The owner's sign-in link carries her token (`/?token=…`): the page trades it
// for its own cookie session and drops it from the address bar and history.
async function redeemLinkToken() {
  const params = new URLSearchParams(location.search);
  const token = params.get('token');
  if (!token) return null;
  params.delete('token');
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
  try {
    const answer = await api.web('sign-in', { token });
    api.setCsrf(answer.csrf);
    return null;
  } catch (refusal) {
    return refusal.message;
  }
}

async function open() {
  const app = document.getElementById('app');
  const linkProblem = await redeemLinkToken();
  const who = await api.session();
  api.setCsrf(who.csrf);
  if (!who.signedIn) {
    const screen = await import('./screens/sign_in.js');
    screen.show(app, ctx, { onSignedIn: () => open(), problem: linkProblem });
    return;
  }
  follow();
  live.start();
  await team.refresh();
  const layout = await import('./layout.js');
  layout.draw(app, ctx);
  window.addEventListener('hashchange', route);
  await route();
}

open().catch((error) => {
  replace(document.getElementById('app'), h('p', { class: 'fatal', role: 'alert' }, error.message || String(error)));
});
