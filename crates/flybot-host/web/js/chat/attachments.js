// Attachments on the page (issue 32): a tray beside a composer that takes files by its Attach button, by paste and by drag and drop,
// uploads each at once (`attachment-upload`, base64 JSON), and hands the ids to the next line sent; and a line's attachments in a
// transcript: a thumbnail the host drew for a picture, a download link for any other file. The host decides who may read a file;
// the page never shows a file's bytes as a page (they are fetched as an image or downloaded, never inlined as HTML, #130).

import { h } from '../dom.js';

const thumbnailUrl = (id) => `/api/bot/attachment/${encodeURIComponent(id)}/thumbnail`;
const fileUrl = (id) => `/api/bot/attachment/${encodeURIComponent(id)}`;

/** The base64 of a Blob's bytes. */
async function base64Of(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** A tray of files for the next line. `api` is the page's channel; `onError(message)` shows a refusal. */
export function attachmentTray({ api, onError }) {
  const files = [];
  const input = h('input', { type: 'file', multiple: true, hidden: true, 'aria-label': 'Attach files' });
  const chips = h('ul', { class: 'attach-chips', 'aria-label': 'Attached files' });
  const button = h('button', { type: 'button', class: 'attach-button', title: 'Attach a file or a picture (or paste or drop one)' }, 'Attach');
  const element = h('div', { class: 'attach-tray' }, button, input, chips);
  button.addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    add([...input.files]);
    input.value = '';
  });

  function chipFor(entry) {
    const remove = h('button', { type: 'button', class: 'attach-remove', 'aria-label': `Remove ${entry.name}` }, '×');
    const chip = h('li', { class: 'attach-chip pending' }, h('span', { class: 'attach-name' }, entry.name), remove);
    remove.addEventListener('click', () => {
      files.splice(files.indexOf(entry), 1);
      chip.remove();
    });
    return chip;
  }

  async function upload(file) {
    const entry = { name: file.name || 'pasted image.png', id: null, done: null };
    const chip = chipFor(entry);
    chips.append(chip);
    files.push(entry);
    entry.done = (async () => {
      try {
        const sent = await api.call('attachment-upload', { name: entry.name, data: await base64Of(file) });
        entry.id = sent.id;
        chip.classList.remove('pending');
        if (sent.kind === 'image') chip.prepend(h('img', { class: 'attach-thumb', src: thumbnailUrl(sent.id), alt: '' }));
      } catch (refusal) {
        files.splice(files.indexOf(entry), 1);
        chip.remove();
        onError?.(refusal.message);
      }
    })();
  }

  function add(list) {
    for (const file of list) upload(file);
  }

  /** Takes files pasted into `target` (a screenshot from the clipboard). */
  function bindPaste(target) {
    target.addEventListener('paste', (event) => {
      const pasted = [...(event.clipboardData?.files || [])];
      if (!pasted.length) return;
      event.preventDefault();
      add(pasted);
    });
  }

  /** Takes files dropped on `target`. */
  function bindDrop(target) {
    target.addEventListener('dragover', (event) => {
      if (event.dataTransfer?.types?.includes('Files')) {
        event.preventDefault();
        target.classList.add('attach-over');
      }
    });
    target.addEventListener('dragleave', () => target.classList.remove('attach-over'));
    target.addEventListener('drop', (event) => {
      target.classList.remove('attach-over');
      const dropped = [...(event.dataTransfer?.files || [])];
      if (!dropped.length) return;
      event.preventDefault();
      add(dropped);
    });
  }

  /** The ids of the files uploaded for the next line (waiting for uploads still running); empties the tray. */
  async function take() {
    await Promise.all(files.map((f) => f.done));
    const ids = files.filter((f) => f.id).map((f) => f.id);
    files.length = 0;
    chips.replaceChildren();
    return ids;
  }

  return { element, bindPaste, bindDrop, take, add };
}

/** A line's attachments: thumbnails for pictures, links for other files (the host answers only what this member may read). */
export function attachmentsNode(ids, api) {
  const list = h('ul', { class: 'attachments' });
  if (!ids?.length) return list;
  api
    .call('attachment-info', { ids })
    .then((answer) => {
      for (const file of answer.attachments || []) {
        const link = h('a', { href: fileUrl(file.id), download: file.name, title: file.name, class: 'attachment-link' });
        if (file.kind === 'image') link.append(h('img', { class: 'attachment-thumb', src: thumbnailUrl(file.id), alt: file.name }));
        else link.append(h('span', { class: 'attachment-file' }, file.name));
        list.append(h('li', {}, link));
      }
    })
    .catch(() => list.append(h('li', { class: 'muted' }, 'An attachment could not be shown.')));
  return list;
}
