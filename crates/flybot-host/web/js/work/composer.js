// A room's composer: a labelled textarea (Enter sends, Shift+Enter is a new line) with @mention completion from the room's members (#287).

import { h, replace, plural } from '../dom.js';
import { uid } from './ui.js';

/** The "@word" the caret sits in, or null: {start, query}. */
function mentionAt(text, caret) {
  const before = text.slice(0, caret);
  const match = before.match(/(^|[\s(])@([^\s@]{0,32})$/u);
  if (!match) return null;
  return { start: caret - match[2].length - 1, query: match[2] };
}

/** composer({members: () => [{id, name}], onSend: async (text) => bool}) → {element, focus()}. */
export function composer({ members, onSend, label = 'Message' }) {
  const listId = uid('mentions');
  const box = h('textarea', {
    class: 'w-composer-input',
    rows: 2,
    placeholder: 'Write to the room; @ calls a member',
    'aria-autocomplete': 'list',
    'aria-controls': listId,
    autocomplete: 'off',
  });
  const boxId = uid('message');
  box.id = boxId;
  const list = h('ul', { class: 'w-mentions', id: listId, role: 'listbox', 'aria-label': 'Members to mention', hidden: true });
  const hint = h('p', { class: 'sr-only', 'aria-live': 'polite' });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send');
  let options = [];
  let active = 0;
  let open = null;

  function close() {
    open = null;
    options = [];
    list.hidden = true;
    box.removeAttribute('aria-activedescendant');
    replace(list);
  }

  function highlight(index) {
    active = (index + options.length) % options.length;
    list.querySelectorAll('[role="option"]').forEach((el, i) => {
      el.setAttribute('aria-selected', String(i === active));
      if (i === active) {
        box.setAttribute('aria-activedescendant', el.id);
        el.scrollIntoView?.({ block: 'nearest' });
      }
    });
  }

  function pick(index) {
    const chosen = options[index];
    if (!chosen || !open) return;
    const text = box.value;
    const caret = box.selectionStart;
    const insert = `@${chosen.name} `;
    box.value = text.slice(0, open.start) + insert + text.slice(caret);
    const at = open.start + insert.length;
    box.setSelectionRange(at, at);
    close();
    hint.textContent = `${chosen.name} mentioned.`;
    box.focus();
  }

  function update() {
    const found = mentionAt(box.value, box.selectionStart);
    if (!found) return close();
    const q = found.query.toLowerCase();
    const everyone = [{ id: 'all', name: 'all', note: 'everyone in the room' }];
    options = [...members(), ...everyone].filter((m) => m.name.toLowerCase().startsWith(q)).slice(0, 8);
    if (options.length === 0) return close();
    open = found;
    replace(
      list,
      options.map((m, i) =>
        h(
          'li',
          {
            id: `${listId}-${i}`,
            role: 'option',
            'aria-selected': 'false',
            onmousedown: (event) => {
              event.preventDefault();
              pick(i);
            },
          },
          h('span', { class: 'w-mention-name' }, `@${m.name}`),
          m.note ? h('span', { class: 'muted' }, ` ${m.note}`) : null,
        ),
      ),
    );
    list.hidden = false;
    highlight(0);
    hint.textContent = `${plural(options.length, 'member')} match; arrow keys choose, Enter picks.`;
  }

  box.addEventListener('input', update);
  box.addEventListener('click', update);
  box.addEventListener('blur', () => setTimeout(close, 100));
  box.addEventListener('keydown', (event) => {
    if (open && options.length) {
      if (event.key === 'ArrowDown') return event.preventDefault(), highlight(active + 1);
      if (event.key === 'ArrowUp') return event.preventDefault(), highlight(active - 1);
      if (event.key === 'Enter' || event.key === 'Tab') return event.preventDefault(), pick(active);
      if (event.key === 'Escape') return event.preventDefault(), close();
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  const form = h(
    'form',
    {
      class: 'w-composer',
      onsubmit: async (event) => {
        event.preventDefault();
        const text = box.value.trim();
        if (!text) return;
        send.disabled = true;
        try {
          if (await onSend(text)) box.value = '';
        } finally {
          send.disabled = false;
          box.focus();
        }
      },
    },
    h('label', { for: boxId, class: 'sr-only' }, label),
    h('div', { class: 'w-composer-row' }, h('div', { class: 'w-composer-box' }, box, list), send),
    hint,
  );
  return { element: form, focus: () => box.focus() };
}
