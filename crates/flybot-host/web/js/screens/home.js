// Home (an empty address): straight to the first Main Bot's chat, or a short welcome with "New Bot" when there is none.

import { h, replace } from '../dom.js';

export async function show(main, ctx) {
  // The person went elsewhere (a search, a sidebar row) before this screen
  // ran or while the team loaded: that place wins over the redirect.
  const stillHome = () => ['', '#', '#/'].includes(location.hash);
  if (!stillHome()) return;
  const state = ctx.team.state || (await ctx.team.refresh());
  if (!stillHome()) return;
  // Only a Bot whose chat is yours: another member's comes without its sessionId (#53).
  const visible = new Set((state.bots || []).filter((b) => b.sessionId && !b.hidden && !b.retired).map((b) => b.id));
  const first = (state.mainBotIds || []).find((id) => visible.has(id)) || [...visible][0];
  if (first) {
    history.replaceState(null, '', `#/bot/${first}`);
    ctx.navigate(`#/bot/${first}`);
    return;
  }
  replace(
    main,
    h(
      'section',
      { class: 'welcome' },
      h('h1', {}, 'Welcome to FlyBot'),
      h('p', {}, 'A Bot is a helper with its own chat, model and instructions. Make your first one to start.'),
      h('a', { class: 'button primary', href: '#/bots/new' }, 'New Bot'),
    ),
  );
}
