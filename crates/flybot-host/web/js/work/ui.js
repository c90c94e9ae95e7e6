// Building blocks the work screens share: a labelled field, a refusal shown beside its field, a modal dialog.

import { h, replace } from '../dom.js';

let serial = 0;
/** A fresh element id with `prefix`. */
export function uid(prefix = 'w') {
  serial += 1;
  return `${prefix}-${serial}`;
}

/** A label, the control and an error line under it. */
export function field(label, control, { name = null, hint = null } = {}) {
  const id = control.id || uid('f');
  control.id = id;
  const error = h('p', { class: 'w-field-error', id: `${id}-error`, hidden: true });
  const described = [hint ? `${id}-hint` : null, `${id}-error`].filter(Boolean).join(' ');
  control.setAttribute('aria-describedby', described);
  const wrap = h(
    'div',
    { class: 'w-field', dataset: { field: name || '' } },
    h('label', { for: id }, label),
    hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null,
    control,
    error,
  );
  return wrap;
}

/** The alert line a form shows a refusal in when it names no field of it. */
export function alertLine() {
  return h('p', { class: 'w-alert', role: 'alert', hidden: true });
}

/** Clears every error a `showRefusal` put in `scope`. */
export function clearRefusal(scope) {
  for (const el of scope.querySelectorAll('.w-field-error, .w-alert')) {
    el.hidden = true;
    el.textContent = '';
  }
  for (const el of scope.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/** Marks each field the person types in inside `scope` (`data-typed`), for `redrawKeeping`; returns the unmarking. */
export function markTyped(scope) {
  const mark = (event) => {
    event.target.dataset.typed = '1';
  };
  scope.addEventListener('input', mark);
  return () => scope.removeEventListener('input', mark);
}

/**
 * Redraws `scope` with `draw` and keeps what the person had in it: the values typed
 * (fields marked `data-typed`), the focus and the caret, a refusal shown beside a field, and one shown
 * in the alert of a part marked `data-keep` (its value names the part across redraws).
 * A redraw comes with any change on the team, so it must not eat a refusal the person
 * has not read.
 */
export function redrawKeeping(scope, draw) {
  // Text typed, not a choice: a radio's or a box's value names the option, not what was picked.
  const typed = [...scope.querySelectorAll('[name][data-typed]')]
    .filter((el) => el.type !== 'radio' && el.type !== 'checkbox')
    .map((el) => [el.name, el.value]);
  const focused = scope.contains(document.activeElement) ? document.activeElement.getAttribute('name') : null;
  const caret = focused ? selectionOf(document.activeElement) : null;
  const refused = [...scope.querySelectorAll('.w-field[data-field]')]
    .map((wrap) => [wrap.dataset.field, wrap.querySelector('.w-field-error')])
    .filter(([name, line]) => name && line && !line.hidden)
    .map(([name, line]) => [name, line.textContent]);
  const alerts = [...scope.querySelectorAll('[data-keep] .w-alert:not([hidden])')]
    .map((line) => [line.closest('[data-keep]').dataset.keep, line.textContent]);
  draw();
  for (const [part, message] of alerts) {
    const holder = scope.querySelector(`[data-keep="${CSS.escape(part)}"]`);
    if (holder) showAlert(holder, message);
  }
  for (const [name, value] of typed) {
    const el = scope.querySelector(`[name="${CSS.escape(name)}"]`);
    if (el && el.value !== value) {
      el.value = value;
      el.dataset.typed = '1';
    }
  }
  for (const [name, message] of refused) {
    const wrap = scope.querySelector(`.w-field[data-field="${CSS.escape(name)}"]`);
    const line = wrap?.querySelector('.w-field-error');
    if (!line) continue;
    line.textContent = message;
    line.hidden = false;
    wrap.querySelector('input, select, textarea')?.setAttribute('aria-invalid', 'true');
  }
  if (!focused) return;
  const field = scope.querySelector(`[name="${CSS.escape(focused)}"]`);
  field?.focus();
  // The caret and what was selected stay, so the next key lands where the person meant it.
  if (field && caret) field.setSelectionRange?.(caret.start, caret.end, caret.direction);
}

/** Where the caret is in a text field (its selection), or null for a control that has none. */
function selectionOf(el) {
  try {
    if (el.selectionStart == null) return null;
    return { start: el.selectionStart, end: el.selectionEnd, direction: el.selectionDirection || 'none' };
  } catch {
    return null;
  }
}

/** Shows `error` (an ApiError, or any Error) in `scope`: beside the field its `details.field` names when the scope has one, else in the scope's alert. */
export function showRefusal(scope, error) {
  clearRefusal(scope);
  const message = error?.message || String(error);
  const name = error?.field || error?.details?.field;
  const wrap = name ? scope.querySelector(`.w-field[data-field="${CSS.escape(name)}"]`) : null;
  if (wrap) {
    const line = wrap.querySelector('.w-field-error');
    line.textContent = message;
    line.hidden = false;
    const control = wrap.querySelector('input, select, textarea');
    control?.setAttribute('aria-invalid', 'true');
    control?.focus();
    return;
  }
  const alert = showAlert(scope, message);
  // The live stream clears this once the host is back (live.js).
  if (error?.code === 'bot/unreachable') alert.dataset.unreachable = '1';
  else delete alert.dataset.unreachable;
}

/** Shows `message` in the alert line of `scope`, adding the line when it has none; returns it. */
function showAlert(scope, message) {
  let alert = scope.querySelector('.w-alert');
  if (!alert) {
    alert = alertLine();
    scope.prepend(alert);
  }
  alert.textContent = message;
  alert.hidden = false;
  return alert;
}

/** Runs `work()` with `button` disabled; a refusal is shown in `scope`; resolves to the answer, or null when refused. */
export async function attempt(scope, button, work) {
  clearRefusal(scope);
  if (button) button.disabled = true;
  scope.dataset.busy = '1';
  try {
    return await work();
  } catch (error) {
    showRefusal(scope, error);
    return null;
  } finally {
    if (button) button.disabled = false;
    delete scope.dataset.busy;
    // A screen that held a redraw while the answer was awaited (`data-busy`) draws now.
    scope.dispatchEvent(new CustomEvent('w-settled', { bubbles: true }));
  }
}

/** A modal <dialog> titled `title` holding `body`; Escape or Close shuts it and it is removed from the page then; returns {dialog, close, body}. */
export function openDialog(title, body, { onClose = null, wide = false } = {}) {
  const titleId = uid('dlg');
  const close = () => dialog.close();
  const dialog = h(
    'dialog',
    { class: `w-dialog${wide ? ' w-dialog-wide' : ''}`, 'aria-labelledby': titleId },
    h(
      'div',
      { class: 'w-dialog-head' },
      h('h2', { id: titleId }, title),
      h('button', { type: 'button', class: 'w-quiet', onclick: close }, 'Close'),
    ),
    h('div', { class: 'w-dialog-body' }, body),
  );
  dialog.addEventListener('close', () => {
    dialog.remove();
    onClose?.();
  });
  document.body.append(dialog);
  dialog.showModal();
  return { dialog, close, body: dialog.querySelector('.w-dialog-body') };
}

/** Replaces the body of an open dialog. */
export function redrawDialog(handle, body) {
  replace(handle.body, body);
}

/** A <select> with `options` as [value, label] pairs and `value` chosen. */
export function select(options, value = '', attrs = {}) {
  return h(
    'select',
    attrs,
    options.map(([v, label]) => h('option', { value: v, selected: v === value }, label)),
  );
}
