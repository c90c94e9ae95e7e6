// The sidebar's Friends' Bots (issue 33): each Bot a friend's home shares with this home, named by the host's one label (#498 friendBotTitle, #967 remoteMentionLabel: `label`), with its owner badge, the lines still waiting to be sent (#371), and its last line as the row's tooltip (#130, already made safe by the host). A share that ended keeps its row, marked no longer shared (#956). A row opens the Bot's own chat (`#/friend/<roomId>`, screens/friend.js). Only the home's owner has these: for anyone else the host refuses `social` and the section stays hidden.

import { h, replace, coalesce } from './dom.js';
import { team } from './team.js';

function row(bot) {
  const waiting = bot.pendingCount || 0;
  return h(
    'li',
    { dataset: { room: bot.roomId } },
    h(
      'a',
      { href: `#/friend/${encodeURIComponent(bot.roomId)}`, title: bot.preview || bot.label },
      h('span', { class: 'row-name' }, bot.label),
      h('span', { class: 'badge owner-badge', title: `Shared by ${bot.home}` }, bot.owner),
      bot.shared ? null : h('span', { class: 'badge gone', title: 'Its owner stopped sharing it' }, 'no longer shared'),
      waiting ? h('span', { class: 'badge count', title: `${waiting} waiting to be sent` }, String(waiting)) : null,
    ),
  );
}

/** The section; it fills itself from `social` and again whenever the team moves. */
export function friendsSection(ctx) {
  const list = h('ul', { class: 'friend-bots' });
  const section = h('div', { class: 'friends-side', hidden: true }, h('h2', {}, 'Friends\' Bots'), list);
  const load = coalesce(async () => {
    let view;
    try {
      view = await ctx.api.call('social');
    } catch {
      section.hidden = true;
      return;
    }
    const bots = view.remoteBots || [];
    section.hidden = !bots.length;
    replace(list, ...bots.map(row));
  });
  team.onChange(() => load().catch(() => {}));
  load().catch(() => {});
  return section;
}
