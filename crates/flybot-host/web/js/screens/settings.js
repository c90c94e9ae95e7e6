// Settings: models and providers (settings_models.js, issue 31), preferences (`set-prefs`), the connectors and saved keys (settings_connectors.js), members and invitations, sign-out, the person's sign-ins, and About (`diagnostics`; its build, links and log download live in about.js).

import { h, replace, redrawChildren, when, plural } from '../dom.js';
import { markTyped, redrawKeeping } from '../work/ui.js';
import { ask, KINDS } from '../chat/notify.js';
import { modelsSection } from './settings_models.js';
import { signIns } from './sign_ins.js';
import { aboutRows, buildText, downloadLog } from './about.js';
import { connectorsSection } from './settings_connectors.js';
import { socialSection } from './settings_social.js';
import * as theme from '../theme.js';

function section(title, ...children) {
  const id = `set-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

function prefs(ctx) {
  const state = ctx.team.state;
  const box = h('input', { type: 'checkbox', id: 'pref-notifications', checked: state.prefs?.notifications !== false });
  const status = h('p', { class: 'hint', role: 'status' });
  box.addEventListener('change', async () => {
    status.textContent = '';
    if (box.checked) ask();
    try {
      await ctx.api.call('set-prefs', { prefs: { notifications: box.checked } });
      status.textContent = 'Saved.';
    } catch (refusal) {
      box.checked = !box.checked;
      status.textContent = refusal.message;
    }
  });
  const kinds = KINDS.map(([kind, label]) => notifyKind(ctx, kind, label));
  const look = h(
    'select',
    { id: 'pref-theme', 'aria-describedby': 'pref-theme-hint' },
    [['system', 'Follow the system'], ['light', 'Light'], ['dark', 'Dark']].map(([v, t]) => h('option', { value: v, selected: v === theme.choice() }, t)),
  );
  look.addEventListener('change', () => theme.set(look.value));
  return section(
    'Preferences',
    h('div', { class: 'field' }, h('label', { for: 'pref-theme' }, 'Theme'), h('p', { class: 'hint', id: 'pref-theme-hint' }, 'Kept in this browser.'), look),
    h('div', { class: 'field' }, h('label', { class: 'check', for: 'pref-notifications' }, box, 'Notifications'), h('p', { class: 'hint' }, 'While FlyBot is in the background, tell me when a Bot answers, its turn fails or something waits for my answer (the browser asks first).'), status),
    h('fieldset', { class: 'field', id: 'pref-notify' }, h('legend', {}, 'Which notifications'), ...kinds),
  );
}

/** The kind of notification saved last and when: its "Saved." outlives the redraw the save's own refresh (or any event) brings for a moment. */
let lastSaved = { kind: '', at: 0 };
const SAVED_SHOWN_MS = 5000;

/** One kind of notification on or off (`notify: {kind: bool}`, #469); the host keeps only the ones turned off. */
function notifyKind(ctx, kind, label) {
  const id = `pref-notify-${kind}`;
  const box = h('input', { type: 'checkbox', id, checked: ctx.team.state.prefs?.notify?.[kind] !== false });
  const justSaved = lastSaved.kind === kind && Date.now() - lastSaved.at < SAVED_SHOWN_MS;
  const status = h('span', { class: 'hint', role: 'status', id: `${id}-status` }, justSaved ? ' Saved.' : '');
  box.addEventListener('change', async () => {
    status.textContent = '';
    lastSaved = { kind: '', at: 0 };
    try {
      await ctx.api.call('set-prefs', { prefs: { notify: { [kind]: box.checked } } });
      lastSaved = { kind, at: Date.now() };
      status.textContent = ' Saved.';
      await ctx.team.refresh();
      // The refresh may have drawn the screen again: say it on the one shown.
      const shown = document.getElementById(`${id}-status`);
      if (shown) shown.textContent = ' Saved.';
    } catch (refusal) {
      box.checked = !box.checked;
      status.textContent = ` ${refusal.message}`;
    }
  });
  return h('label', { class: 'check', for: id }, box, label, status);
}

function people(ctx, session, keep) {
  const state = ctx.team.state;
  const me = state.actor?.memberId;
  const error = h('p', { class: 'form-error', role: 'alert' });
  const act = (label, endpoint, body, name) => {
    const b = h('button', { type: 'button', class: 'danger' }, label, h('span', { class: 'sr-only' }, ` ${name}`));
    b.addEventListener('click', async () => {
      error.textContent = '';
      b.disabled = true;
      try {
        await ctx.api.call(endpoint, body);
        await ctx.team.refresh();
      } catch (refusal) {
        error.textContent = refusal.message;
        b.disabled = false;
      }
    });
    return b;
  };
  // The host's owner is its first member (core access::host_owner_id); only the owner removes another member.
  const owner = [...(state.members || [])].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))[0]?.id;
  const mayRemove = (m) => m.id !== me && me === owner;
  const members = (state.members || []).map((m) =>
    h(
      'div',
      { class: 'row' },
      h('div', { class: 'grow' }, h('strong', {}, m.name), m.id === me ? ' (you)' : '', m.id === owner ? h('span', { class: 'hint' }, ' · host owner') : null, h('br'), h('span', { class: 'hint' }, `Member since ${when(m.createdAt)}`)),
      mayRemove(m) ? act('Remove', 'auth-remove-member', { memberId: m.id }, m.name) : null,
    ),
  );
  const invitations = (state.invitations || []).filter((i) => i.status === 'open').map((i) =>
    h(
      'div',
      { class: 'row' },
      h('div', { class: 'grow' }, h('strong', {}, i.name || 'Invitation'), h('br'), h('span', { class: 'hint' }, `not used yet · made ${when(i.createdAt)}`)),
      i.status === 'open' ? act('Revoke', 'auth-revoke-invite', { id: i.id }, i.name || 'invitation') : null,
    ),
  );
  const inviteName = h('input', { id: 'invite-name', name: 'invite-name', autocomplete: 'off' });
  const once = keep.once;
  const invite = h('button', { type: 'submit' }, 'Invite');
  const form = h('form', { class: 'field' }, h('label', { for: 'invite-name' }, 'Invite someone', h('span', { class: 'hint' }, ' (their name, optional)')), h('div', { class: 'actions' }, inviteName, invite));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    invite.disabled = true;
    try {
      const { invitation } = await ctx.api.call('auth-invite', inviteName.value.trim() ? { name: inviteName.value.trim() } : {});
      replace(once, h('p', {}, 'Give this code to the person; it is shown only now:'), h('p', { class: 'code-once' }, invitation.code));
      inviteName.value = '';
      ctx.team.refresh().catch(() => {});
    } catch (refusal) {
      error.textContent = refusal.message;
    } finally {
      invite.disabled = false;
    }
  });
  const signOut = session?.member && !session.singleOwner
    ? h('button', { type: 'button' }, 'Sign out')
    : null;
  signOut?.addEventListener('click', async () => {
    try {
      await ctx.api.web('sign-out');
    } catch {}
    ctx.live.stop();
    location.hash = '';
    location.reload();
  });
  return section(
    'Members and invitations',
    members.length ? members : h('p', { class: 'muted' }, 'You are the only person on this host.'),
    invitations.length ? h('h3', {}, 'Open invitations') : null,
    invitations,
    form,
    once,
    error,
    signOut ? h('div', { class: 'actions' }, signOut) : null,
  );
}

function about(ctx) {
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  ctx.api
    .call('diagnostics', {})
    .then(({ diagnostics: d }) => {
      const item = (k, v) => [h('dt', {}, k), h('dd', {}, v)];
      replace(
        body,
        h(
          'dl',
          { class: 'about' },
          item('Home folder', d.home),
          item('Build', buildText(d)),
          item('Store', d.store?.writer ? 'writing' : `read-only: ${d.store?.reason || ''}`),
          item('Revision', String(d.revision)),
          item('Team', [[d.counts.members, 'member'], [d.counts.bots, 'Bot'], [d.counts.rooms, 'room'], [d.counts.tasks, 'task']].map(([n, w]) => plural(n, w)).join(' · ')),
          aboutRows(d, item),
        ),
        downloadLog(ctx),
      );
    })
    .catch((refusal) => replace(body, h('p', { class: 'muted' }, refusal.message)));
  return section('About', body);
}

/** A section holding the person's unfinished work (`data-work`: a pasted link, its preview) is kept by a redraw. */
const holdsWork = (section) => !!section.querySelector('[data-work]');

export async function show(main, ctx) {
  const keep = { results: new Map(), once: h('div', { 'aria-live': 'polite' }) };
  let session = null;
  let gone = false;
  const draw = () => {
    const focused = document.activeElement?.id;
    // A team change swaps only the sections that read differently: before,
    // every section was rebuilt, one being read was swapped for its twin and
    // a preview vanished under the person (a Playwright run caught both).
    const sections = [h('h1', {}, 'Settings'), modelsSection(ctx, keep, section), prefs(ctx), connectorsSection(ctx, section, keep), socialSection(ctx, section), people(ctx, session, keep), signIns(ctx, section), about(ctx)];
    // A name typed and refused is still there to shorten after the redraw.
    redrawKeeping(main, () => redrawChildren(main, sections, holdsWork));
    if (focused) document.getElementById(focused)?.focus();
  };
  // Nothing of the screen shown before is kept.
  replace(main);
  const unmark = markTyped(main);
  draw();
  ctx.api
    .session()
    .then((answer) => {
      session = answer;
      if (!gone && answer.member && !answer.singleOwner) draw();
    })
    .catch(() => {});
  // Redraw when the team changes, but never under the person's typing.
  let timer = null;
  const off = ctx.team.onChange(() => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const active = document.activeElement;
      if (main.contains(active) && (active.tagName === 'TEXTAREA' || (active.tagName === 'INPUT' && active.type !== 'checkbox'))) return;
      draw();
    }, 300);
  });
  return () => {
    gone = true;
    clearTimeout(timer);
    unmark();
    off();
  };
}
