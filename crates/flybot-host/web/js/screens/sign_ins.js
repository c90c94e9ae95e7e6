// Settings' "Sign-ins" (issue 29): the person's own sessions (`auth-sessions`), when each
// was made, last used and expires, and Revoke for any of them (`auth-revoke {sessionId}`).

import { h, replace, when } from '../dom.js';

export function signIns(ctx, section) {
  const list = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const status = h('p', { class: 'hint', role: 'status' });
  const load = () =>
    ctx.api
      .call('auth-sessions', {})
      .then(({ sessions }) => replace(list, ...(sessions.length ? sessions.map(row) : [h('p', { class: 'muted' }, 'No browser is signed in; the owner\'s link signs one in.')])))
      .catch((refusal) => replace(list, h('p', { class: 'muted' }, refusal.message)));
  const row = (s) => {
    const revoke = h('button', { type: 'button' }, 'Revoke', h('span', { class: 'sr-only' }, ` the sign-in made ${when(s.createdAt)}`));
    revoke.addEventListener('click', async () => {
      revoke.disabled = true;
      try {
        await ctx.api.call('auth-revoke', { sessionId: s.id });
        if (s.current) {
          location.reload();
          return;
        }
        status.textContent = 'Signed out.';
        load();
      } catch (refusal) {
        status.textContent = refusal.message;
        revoke.disabled = false;
      }
    });
    const used = s.lastSeenAt ? `last used ${when(s.lastSeenAt)}` : 'not used since then';
    return h(
      'div',
      { class: 'row sign-in-row' },
      h('div', { class: 'grow' }, h('strong', {}, s.current ? 'This browser' : 'Another sign-in'), h('br'), h('span', { class: 'hint' }, `signed in ${when(s.createdAt)} · ${used} · expires ${when(s.expiresAt)}`)),
      revoke,
    );
  };
  load();
  return section('Sign-ins', list, status);
}
