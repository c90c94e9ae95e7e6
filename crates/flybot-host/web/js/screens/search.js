// Search (#/search?q=…): the lines matching the words in the chats and rooms this person may read; a hit opens its conversation at that line.

import { h, replace, when, plural } from '../dom.js';

/** The words in the address (`#/search?q=…`). */
export function queryOf(hash) {
  const at = hash.indexOf('?');
  return at < 0 ? '' : new URLSearchParams(hash.slice(at + 1)).get('q') || '';
}

/** Where a hit opens: its conversation at its line. */
function hrefOf(hit) {
  return hit.place === 'room' ? `#/room/${hit.roomId}/line/${hit.seq}` : `#/bot/${hit.botId}/line/${hit.seq}`;
}

function snippet(parts) {
  return h('span', { class: 'hit-text' }, parts.map((part) => (part.hit ? h('mark', {}, part.text) : part.text)));
}

function hitRow(hit) {
  const where = hit.place === 'room' ? `Room ${hit.name}` : `Chat with ${hit.name}`;
  return h(
    'li',
    {},
    h(
      'a',
      { class: 'hit', href: hrefOf(hit) },
      h('span', { class: 'hit-where' }, h('strong', {}, where), hit.author ? ` · ${hit.author}` : '', h('span', { class: 'muted' }, ` · ${when(hit.at)}`)),
      snippet(hit.snippet || []),
    ),
  );
}

export async function show(main, ctx) {
  const query = queryOf(location.hash);
  const input = h('input', { type: 'search', name: 'q', value: query, 'aria-label': 'Search chats and rooms', placeholder: 'Words to find', autocomplete: 'off' });
  const status = h('p', { class: 'muted', role: 'status' });
  const list = h('ul', { class: 'hits' });
  const form = h(
    'form',
    {
      role: 'search',
      class: 'search-form',
      onsubmit: (event) => {
        event.preventDefault();
        const words = input.value.trim();
        if (words) ctx.navigate(`#/search?q=${encodeURIComponent(words)}`);
      },
    },
    input,
    h('button', { type: 'submit', class: 'primary' }, 'Search'),
  );
  replace(main, h('section', { class: 'screen search' }, h('h1', {}, 'Search'), form, status, list));
  if (!query.trim()) {
    status.textContent = 'Find a line in your chats and the rooms you are in.';
    input.focus();
    return;
  }
  status.textContent = 'Searching…';
  try {
    const answer = await ctx.api.call('search', { query });
    const hits = answer.hits || [];
    status.textContent = hits.length ? `${plural(hits.length, 'line')} found for “${query}”.` : `Nothing found for “${query}”.`;
    replace(list, hits.map(hitRow));
    (list.querySelector('a') || input).focus();
  } catch (refusal) {
    status.textContent = refusal.message;
    status.setAttribute('role', 'alert');
    input.focus();
  }
}
