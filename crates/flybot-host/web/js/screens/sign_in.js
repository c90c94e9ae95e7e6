// Sign-in: the owner opens the link `flybot serve` printed (it signs her in before this
// screen shows); anyone else enters an invitation code and a name (POST /web/sign-in).

import { h, replace } from '../dom.js';

export async function show(app, ctx, { onSignedIn, problem }) {
  const code = h('input', { id: 'signin-code', name: 'code', autocomplete: 'one-time-code', required: true, spellcheck: 'false' });
  const name = h('input', { id: 'signin-name', name: 'name', autocomplete: 'name', required: true });
  const error = h('p', { class: 'form-error', role: 'alert' }, problem || '');
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'sign-in', novalidate: true },
    h('h1', {}, 'Sign in to FlyBot'),
    h('p', { class: 'muted' }, 'Are you the owner? Open the sign-in link FlyBot printed when it started (run `flybot token` on its machine to see it again).'),
    h('p', { class: 'muted' }, 'Invited by a member? Enter the invitation code they gave you and the name your team will see.'),
    h('div', { class: 'field' }, h('label', { for: 'signin-code' }, 'Invitation code'), code),
    h('div', { class: 'field' }, h('label', { for: 'signin-name' }, 'Your name'), name),
    error,
    h('div', { class: 'actions' }, submit),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    if (!code.value.trim()) {
      error.textContent = 'Enter the invitation code.';
      code.focus();
      return;
    }
    if (!name.value.trim()) {
      error.textContent = 'Enter your name.';
      name.focus();
      return;
    }
    submit.disabled = true;
    try {
      const answer = await ctx.api.web('sign-in', { code: code.value.trim(), name: name.value.trim() });
      ctx.api.setCsrf(answer.csrf);
      onSignedIn?.();
    } catch (refusal) {
      error.textContent = refusal.message;
      (refusal.field === 'name' ? name : code).focus();
    } finally {
      submit.disabled = false;
    }
  });
  replace(app, h('main', { id: 'main' }, form));
  code.focus();
}
