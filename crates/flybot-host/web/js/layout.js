// The page's frame: a sidebar (nav) beside the main pane (main#main).

import { h } from './dom.js';
import * as sidebar from './sidebar.js';

/** Draws the frame into `app`; the router then draws screens into #main. */
export function draw(app, ctx) {
  const nav = h('nav', { class: 'sidebar', id: 'sidebar', 'aria-label': 'FlyBot' });
  const menu = h('button', { type: 'button', 'aria-expanded': 'false', 'aria-controls': 'sidebar' }, 'Menu');
  const conn = h('span', { class: 'conn', role: 'status' }, 'Connecting…');
  const top = h('header', { class: 'topbar' }, menu, h('strong', {}, 'FlyBot'), conn);
  const main = h('main', { id: 'main', tabindex: '-1' });

  const setOpen = (open) => {
    nav.classList.toggle('open', open);
    menu.setAttribute('aria-expanded', String(open));
  };
  menu.addEventListener('click', () => {
    const open = !nav.classList.contains('open');
    setOpen(open);
    if (open) nav.querySelector('a, button')?.focus();
  });
  nav.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && nav.classList.contains('open')) {
      setOpen(false);
      menu.focus();
    }
  });
  window.addEventListener('hashchange', () => setOpen(false));
  nav.addEventListener('click', (event) => event.target.closest('a') && setOpen(false));

  // The connection indicator: in the top bar at phone width, else in the sidebar.
  const side = h('span', { class: 'conn', role: 'status' }, 'Connecting…');
  const show = (live) => {
    for (const el of [conn, side]) {
      el.textContent = live ? 'Live' : 'Reconnecting…';
      el.className = `conn ${live ? 'live' : 'lost'}`;
    }
  };
  if (ctx.live.isLive?.()) show(true);
  ctx.live.on('status', ({ live }) => show(live));

  const skip = h('button', { type: 'button', class: 'skip' }, 'Skip to main content');
  skip.addEventListener('click', () => (main.querySelector('textarea, h1') || main).focus());
  const phoneNotice = h('div', { class: 'phone-notice' });
  app.replaceChildren(skip, h('div', { class: 'shell' }, top, nav, phoneNotice, main));
  sidebar.draw(nav, ctx, side, phoneNotice);
  return main;
}
