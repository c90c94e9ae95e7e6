// A Bot's memory for its owner (#/bot/<id>/memory, #450): the pinned block, the entries (newest 200), add, edit, delete.

import { h, replace, when } from '../dom.js';

/** A labelled control whose error line shows a refusal's sentence. */
function field(id, label, control) {
  control.id = id;
  const error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert' });
  control.setAttribute('aria-describedby', error.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, error);
}

/** A button that calls the channel; a refusal shows beside `box`, success redraws. */
function action(label, box, call, redraw, cls = 'primary') {
  const button = h('button', { type: 'button', class: cls }, label);
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await call();
      await redraw();
    } catch (refusal) {
      box.querySelector('.field-error').textContent = refusal.message;
      button.disabled = false;
    }
  });
  return button;
}

/** The newest drawing asked of each screen: an older one whose read comes back later is dropped. */
const newest = new WeakMap();

export async function show(main, ctx, { botId }) {
  const bot = (ctx.team.state.bots || []).find((b) => b.id === botId);
  const redraw = () => show(main, ctx, { botId });
  const call = (endpoint, body) => () => ctx.api.call(endpoint, { botId, ...body });
  const drawing = {};
  newest.set(main, drawing);
  let memory;
  try {
    memory = await ctx.api.call('memory', { botId });
  } catch (refusal) {
    if (newest.get(main) !== drawing) return undefined;
    return replace(main, h('h1', {}, 'Memory'), h('p', { class: 'form-error', role: 'alert' }, refusal.message));
  }
  // Two saves in a row draw twice: the later read is the newer memory.
  if (newest.get(main) !== drawing) return undefined;
  const box = (tag) => h(tag, tag === 'textarea' ? { rows: '3' } : { autocomplete: 'off' });
  const pinnedBox = box('textarea');
  pinnedBox.value = memory.pinned;
  const pinned = field('mem-pinned', 'Pinned memory', pinnedBox);
  const topicBox = box('input');
  const textBox = box('textarea');
  const text = field('mem-text', 'New entry', textBox);
  const rows = [...memory.entries].reverse().map((entry) => {
    const edit = box('textarea');
    edit.value = entry.text;
    const f = field(`mem-${entry.id}`, `Entry on ${entry.topic}`, edit);
    const del = action('Delete entry', f, call('memory-delete', { id: entry.id }), redraw, 'danger');
    return h('li', { class: 'card' }, h('p', { class: 'hint' }, `by ${entry.by} · ${when(entry.at)}`), f, h('div', { class: 'actions' }, action('Save entry', f, () => ctx.api.call('memory-edit', { botId, id: entry.id, text: edit.value }), redraw), del));
  });
  const more = memory.total > rows.length ? ` (newest ${rows.length} of ${memory.total})` : '';
  replace(
    main,
    h('div', { class: 'chat-head' }, h('h1', {}, `Memory of ${bot ? bot.name : botId}`), h('a', { class: 'button', href: `#/bot/${botId}` }, 'Chat')),
    h('p', { class: 'hint' }, 'The Markdown files in the home are the memory; nothing shaped like a key or password is kept. The pinned block shows from the next conversation part.'),
    pinned,
    h('div', { class: 'actions' }, action('Save pinned', pinned, () => ctx.api.call('memory-pin', { botId, text: pinnedBox.value }), redraw)),
    h('h2', {}, 'Add an entry'),
    field('mem-topic', 'Topic', topicBox),
    text,
    h('div', { class: 'actions' }, action('Add entry', text, () => ctx.api.call('memory-append', { botId, text: textBox.value, topic: topicBox.value || undefined }), redraw)),
    h('h2', {}, `Entries${more}`),
    rows.length ? h('ul', { class: 'lines' }, rows) : h('p', { class: 'hint' }, 'Nothing remembered yet.'),
  );
}
