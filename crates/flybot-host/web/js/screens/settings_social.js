// Settings, Friends' homes (issue 33): this home's identity is a Matrix account (homeserver, then a password or an access token; the token is kept as a secret no Bot gets), friends are Matrix users, a Bot is published to a friend one at a time, and a friend's published Bots are listed with their owner's name and a line to write to them. A share that ended keeps its row, marked no longer shared (#956). Each published Bot's policy says whether its sends to friends go at once (Auto-send, #417) or wait for the owner's Send in the Inbox (#52). Only the home's owner sees this section; the host refuses anyone else.

import { h, replace, when } from '../dom.js';
import { joinByLink } from './settings_room_links.js';

function field(id, label, hint, input) {
  return h('div', { class: 'field' }, h('label', { for: id }, label), hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null, input);
}

function input(id, attrs = {}) {
  return h('input', { id, name: id, autocomplete: 'off', spellcheck: 'false', ...attrs });
}

/** A form whose submit calls the host with `body()`, then refreshes the team; a refusal shows beside it. */
function form(ctx, title, fields, label, endpoint, body, done = () => {}) {
  const error = h('p', { class: 'form-error', role: 'alert' });
  const go = h('button', { type: 'submit', class: 'primary' }, label);
  const f = h('form', { class: 'connector-form', 'aria-label': title }, ...fields, h('div', { class: 'actions' }, go), error);
  f.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    go.disabled = true;
    try {
      await ctx.api.call(endpoint, body());
      done();
      await ctx.team.refresh();
    } catch (refusal) {
      error.textContent = refusal.message;
    } finally {
      go.disabled = false;
    }
  });
  return f;
}

function connectForm(ctx) {
  const server = input('social-homeserver', { type: 'url', placeholder: 'https://matrix.example.org' });
  const user = input('social-user');
  const password = input('social-password', { type: 'password' });
  const token = input('social-token', { type: 'password' });
  return form(
    ctx,
    'Connect a Matrix account',
    [
      field('social-homeserver', 'Homeserver', 'The address of any Matrix server: your own Synapse or Conduit, or a public one.', server),
      field('social-user', 'User', 'Then either the account\'s user and password…', user),
      field('social-password', 'Password', null, password),
      field('social-token', 'Or an access token', 'Kept as a secret on this host; no Bot ever gets it.', token),
    ],
    'Connect',
    'social-connect',
    () => (token.value ? { homeserver: server.value.trim(), accessToken: token.value } : { homeserver: server.value.trim(), user: user.value.trim(), password: password.value }),
    () => {
      password.value = '';
      token.value = '';
    },
  );
}

/** One friend's Bot: its title with the owner badge, the last lines, and a line to write. */
function remoteBotRow(ctx, bot) {
  const lines = bot.lines.slice(-6).map((line) =>
    h('li', { class: line.notSent ? 'form-error' : null }, h('strong', {}, line.bot ? bot.title : line.typedBy || line.fromHome), line.verified || !line.bot ? null : h('span', { class: 'hint' }, ' (unverified)'), `: ${line.notSent || line.text}`),
  );
  const text = input(`social-line-${bot.roomId}`, { 'aria-label': `Write to ${bot.title}` });
  const write = bot.shared
    ? form(ctx, `A line to ${bot.title}`, [text], 'Send', 'social-send', () => ({ roomId: bot.roomId, text: text.value }), () => (text.value = ''))
    : null;
  return h(
    'div',
    { class: 'row social-bot', 'data-room': bot.roomId },
    h(
      'div',
      { class: 'grow' },
      h('strong', {}, bot.title),
      ' ',
      h('span', { class: 'badge owner-badge', title: bot.home }, bot.owner),
      bot.shared ? null : h('span', { class: 'hint' }, ' · no longer shared'),
      bot.awaiting ? h('span', { class: 'hint' }, ' · waiting for the answer') : null,
      lines.length ? h('ul', { class: 'social-lines' }, ...lines) : null,
      write,
    ),
  );
}

function publishForm(ctx, view) {
  const bots = (ctx.team.state.bots || []).filter((b) => !b.retired && !b.remote && b.sessionId);
  const bot = h('select', { id: 'social-publish-bot', name: 'social-publish-bot' }, ...bots.map((b) => h('option', { value: b.id }, b.name)));
  const friend = h('select', { id: 'social-publish-friend', name: 'social-publish-friend' }, ...view.friends.map((f) => h('option', { value: f.userId }, f.userId)));
  return form(ctx, 'Publish a Bot to a friend', [field('social-publish-bot', 'Bot', null, bot), field('social-publish-friend', 'Friend', null, friend)], 'Publish', 'social-publish', () => ({ botId: bot.value, userId: friend.value }));
}

/** How one of the owner's Bots sends to friends (#52, #417): at once, or after the owner's Send in the Inbox. */
function policyRow(ctx, bot, name) {
  const id = `social-policy-${bot.botId}`;
  const error = h('p', { class: 'form-error', role: 'alert' });
  const choice = h(
    'select',
    { id, name: id },
    h('option', { value: 'auto-send', selected: bot.policy !== 'ask-first' }, 'Send at once'),
    h('option', { value: 'ask-first', selected: bot.policy === 'ask-first' }, 'Ask me first (in the Inbox)'),
  );
  choice.addEventListener('change', async () => {
    error.textContent = '';
    try {
      await ctx.api.call('social-policy', { botId: bot.botId, policy: choice.value });
    } catch (refusal) {
      error.textContent = refusal.message;
    }
  });
  return h('div', { class: 'row social-policy' }, h('div', { class: 'grow' }, field(id, `How ${name} sends to friends`, null, choice)), error);
}

function draw(ctx, body, view) {
  const bots = ctx.team.state.bots || [];
  const nameOf = (id) => bots.find((b) => b.id === id)?.name || id;
  if (!view.account) {
    replace(body, h('p', { class: 'muted' }, 'This home is not on Matrix yet. Connect an account to meet your friends\' Bots.'), connectForm(ctx));
    return;
  }
  const disconnect = form(ctx, 'Disconnect', [], 'Disconnect', 'social-disconnect', () => ({}));
  const addFriend = input('social-friend');
  const published = view.published.map((p) =>
    h(
      'div',
      { class: 'row' },
      h('div', { class: 'grow' }, `${nameOf(p.botId)} → ${p.friend}`, p.shared ? null : h('span', { class: 'hint' }, ' · not shared')),
      p.shared ? form(ctx, `Stop sharing ${nameOf(p.botId)}`, [], 'Stop sharing', 'social-unpublish', () => ({ botId: p.botId, userId: p.friend })) : null,
    ),
  );
  replace(
    body,
    h('p', {}, `Connected as ${view.account.userId} on ${view.account.homeserver} · ${view.status}`, view.lastError ? h('span', { class: 'form-error' }, ` · ${view.lastError}`) : null),
    view.pendingCount ? h('p', { class: 'hint' }, `${view.pendingCount} waiting to be sent.`) : null,
    disconnect,
    h('h3', {}, 'Friends'),
    view.friends.length ? h('ul', {}, ...view.friends.map((f) => h('li', {}, `${f.userId} · since ${when(f.since)}`))) : h('p', { class: 'muted' }, 'No friend yet.'),
    view.invites.length ? h('p', { class: 'hint' }, 'Waiting for you to accept or decline:') : null,
    ...[...new Set(view.invites)].map((user) =>
      h(
        'div',
        { class: 'row social-invite' },
        h('div', { class: 'grow' }, user),
        form(ctx, `Accept ${user}`, [], 'Accept', 'social-friend-add', () => ({ userId: user })),
        form(ctx, `Decline ${user}`, [], 'Decline', 'social-friend-decline', () => ({ userId: user })),
      ),
    ),
    form(ctx, 'Add a friend', [field('social-friend', 'Matrix user', 'Such as @bob:example.org; an invite from them is accepted too.', addFriend)], 'Add friend', 'social-friend-add', () => ({ userId: addFriend.value.trim() }), () => (addFriend.value = '')),
    h('h3', {}, 'Friends\' Bots'),
    view.remoteBots.length ? view.remoteBots.map((b) => remoteBotRow(ctx, b)) : h('p', { class: 'muted' }, 'No friend has shared a Bot with you yet.'),
    h('h3', {}, 'Your published Bots'),
    published.length ? published : h('p', { class: 'muted' }, 'None of your Bots is published; nobody else can reach them.'),
    ...(view.bots || []).map((b) => policyRow(ctx, b, nameOf(b.botId))),
    view.friends.length ? publishForm(ctx, view) : null,
    h('h3', {}, 'Join a room by link'),
    joinByLink(ctx),
  );
}

/** The section, filled once the host answers `social`. */
export function socialSection(ctx, section) {
  const body = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading…'));
  ctx.api
    .call('social')
    .then((view) => draw(ctx, body, view))
    .catch((refusal) => replace(body, h('p', { class: 'muted' }, refusal.message)));
  return section('Friends\' homes', body);
}
