// A Bot's conversations (#/bot/<id>/conversations): the earlier ones listed with their first line and dates, each
// readable (#/bot/<id>/conversations/<part>); the current one is the chat itself.

import { h, replace, when, plural } from '../dom.js';
import { entryNode, attachResult } from '../chat/transcript.js';

export async function show(main, ctx, { botId, part }) {
  const bot = (ctx.team.state?.bots || []).find((b) => b.id === botId);
  if (!bot) {
    replace(main, h('h1', {}, 'No such Bot'), h('p', {}, 'This Bot does not exist or is not yours to see.'));
    return null;
  }
  const back = h('a', { class: 'button', href: `#/bot/${botId}` }, 'Back to the chat');
  const title = h('h1', {}, part ? `${bot.name}: an earlier conversation` : `${bot.name}: conversations`);
  const body = h('div', { class: 'log-inner' }, h('p', { class: 'muted' }, 'Loading…'));
  const log = h('div', { class: 'log', role: part ? 'log' : null, 'aria-label': part ? 'An earlier conversation' : null, tabindex: part ? '0' : null }, body);
  main.className = 'main-chat';
  replace(main, h('div', { class: 'chat-head' }, title, part ? h('a', { class: 'button', href: `#/bot/${botId}/conversations` }, 'All conversations') : null, back), log);

  try {
    if (part) await drawOne(ctx, bot, Number(part), body);
    else await drawList(ctx, bot, body);
  } catch (refusal) {
    replace(body, h('p', { class: 'error', role: 'alert' }, refusal.message));
  }
  return () => {
    main.className = '';
  };
}

async function drawList(ctx, bot, body) {
  const answer = await ctx.api.call('conversations', { botId: bot.id });
  const rows = [...answer.conversations].reverse();
  const items = rows.map((c) => {
    const label = c.firstLine || 'No lines yet';
    const dates = c.started ? `${when(c.started)} · ${plural(c.lines, 'line')}` : plural(c.lines, 'line');
    const link = c.current
      ? h('a', { href: `#/bot/${bot.id}` }, label)
      : h('a', { href: `#/bot/${bot.id}/conversations/${c.part}` }, label);
    return h('li', { class: 'conversation-row' }, link, h('span', { class: 'muted' }, c.current ? `The current conversation · ${dates}` : dates));
  });
  replace(
    body,
    rows.length > 1 ? null : h('p', { class: 'muted' }, `There are no earlier conversations with ${bot.name} yet; "New conversation" in the chat starts one.`),
    h('ul', { class: 'conversations', 'aria-label': 'Conversations, newest first' }, ...items),
  );
}

async function drawOne(ctx, bot, part, body) {
  const answer = await ctx.api.call('messages', { botId: bot.id, part });
  const names = {
    me: ctx.team.state?.actor?.memberId,
    bot: (id) => (ctx.team.state?.bots || []).find((b) => b.id === id)?.name,
    member: (id) => (ctx.team.state?.members || []).find((m) => m.id === id)?.name,
    self: () => bot.name,
  };
  const calls = new Map();
  const nodes = [];
  for (const entry of answer.messages || []) {
    if (entry.kind === 'tool-result' && calls.has(entry.toolCallId)) {
      attachResult(calls.get(entry.toolCallId), entry);
      continue;
    }
    const node = entryNode(entry, names);
    if (node && entry.kind === 'tool-call') calls.set(entry.toolCallId, node);
    if (node) nodes.push(node);
  }
  replace(body, nodes.length ? nodes : h('p', { class: 'muted' }, 'This conversation has no lines.'));
}
