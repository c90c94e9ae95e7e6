// The chat's composer: a textarea labelled "Message" (Enter sends, Shift+Enter starts a new line) and a "Send" button.

import { h } from '../dom.js';

export function composer({ placeholder, onSend }) {
  const error = h('p', { class: 'error', role: 'alert' });
  const box = h('textarea', { id: 'chat-message', rows: '1', placeholder, autocomplete: 'off' });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send');
  const form = h('form', {}, h('label', { for: 'chat-message', class: 'sr-only' }, 'Message'), box, send);
  const grow = () => {
    box.style.height = 'auto';
    box.style.height = `${Math.min(box.scrollHeight + 2, 192)}px`;
  };
  const submit = async () => {
    const text = box.value;
    if (!text.trim()) return;
    error.textContent = '';
    delete error.dataset.unreachable;
    box.value = '';
    grow();
    try {
      await onSend(text);
    } catch (refusal) {
      error.textContent = refusal.message;
      // The live stream clears this once the host is back (live.js).
      if (refusal.code === 'bot/unreachable') error.dataset.unreachable = '1';
      if (!box.value) box.value = text;
      grow();
    }
    box.focus();
  };
  box.addEventListener('input', grow);
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit();
  });
  const element = h(
    'div',
    { class: 'composer' },
    error,
    form,
    h('p', { class: 'hint' }, 'Enter sends; Shift+Enter starts a new line.'),
  );
  /** Puts `text` back in the box (before what is there), e.g. lines stopped before they were sent. */
  const restore = (text) => {
    box.value = box.value ? `${text}\n${box.value}` : text;
    grow();
    box.focus();
  };
  /** Puts `text` in the box to be changed and sent again as a new line (Edit on the person's last line). */
  const edit = (text) => {
    box.value = text;
    grow();
    box.focus();
    box.setSelectionRange(text.length, text.length);
  };
  return { element, focus: () => box.focus(), restore, edit, send: (text) => onSend(text) };
}
