// Settings → Models (issue 31): every model with Test connection (the model's own short reply and how long it took, the mock named as the mock, a failure's sentence), and for the host's owner the providers: add, edit and remove an OpenAI-compatible provider and its models, applied at once. A key typed here is saved as a secret and never shown again.

import { h, replace, redrawChildren } from '../dom.js';

/** Whether this person is the host's owner (its first member), who alone sets up models. */
export function isHostOwner(state) {
  if (state.actor?.singleOwner) return true;
  const me = state.actor?.memberId;
  const first = [...(state.members || [])].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))[0];
  return Boolean(me) && first?.id === me;
}

function verdictText(verdict) {
  if (verdict.ok && verdict.mock) return { cls: 'ok', text: 'This is the built-in mock model: it answers on this computer, with no provider behind it.' };
  if (verdict.ok && verdict.unknown) return { cls: 'ok', text: `It answered in ${verdict.ms} ms, but the reply did not say it was finished.` };
  if (verdict.ok) return { cls: 'ok', text: verdict.reply ? `It answered “${verdict.reply}” in ${verdict.ms} ms.` : `It answered, with no words, in ${verdict.ms} ms.` };
  return { cls: 'bad', text: verdict.sentence || 'The test failed. Try again.' };
}

function modelRows(ctx, keep, owner) {
  const state = ctx.team.state;
  const me = state.actor?.memberId;
  const bots = (state.bots || []).filter((b) => !b.hidden && (state.actor?.singleOwner || b.ownerId === me));
  return (state.model?.names || []).map((name) => {
    const users = bots.filter((b) => b.model === name);
    if (!keep.results.has(name)) keep.results.set(name, h('span', { role: 'status' }));
    const result = keep.results.get(name);
    const body = users.length ? { botId: users[0].id } : owner ? { model: name } : null;
    const test = h('button', { type: 'button', disabled: !body }, 'Test connection', h('span', { class: 'sr-only' }, ` for ${name}`));
    test.addEventListener('click', async () => {
      test.disabled = true;
      result.className = 'muted';
      result.textContent = 'Testing…';
      try {
        const { test: verdict } = await ctx.api.call('test-model', body);
        const shown = verdictText(verdict);
        result.className = shown.cls;
        result.textContent = shown.text;
      } catch (refusal) {
        result.className = 'bad';
        result.textContent = refusal.message;
      } finally {
        test.disabled = false;
      }
    });
    const uses = users.length ? `used by ${users.map((b) => b.name).join(', ')}` : 'no Bot of yours uses it yet';
    return h(
      'div',
      { class: 'row' },
      h('div', { class: 'grow' }, h('strong', {}, name), name === state.model?.default ? ' (default)' : '', h('br'), h('span', { class: 'hint' }, uses)),
      test,
      result,
    );
  });
}

let serial = 0;
function input(label, attrs, hint = null) {
  serial += 1;
  const id = `pm-${serial}`;
  const control = h('input', { id, ...attrs });
  return { control, node: h('div', { class: 'field' }, h('label', { for: id }, label), hint ? h('p', { class: 'hint' }, hint) : null, control) };
}

/** One model's row in the provider form. */
function modelFieldset(entry, onRemove) {
  const name = input('Name Bots pick it by', { value: entry?.name || '', autocomplete: 'off', name: 'model-name' });
  const id = input('Model id at the provider', { value: entry?.model || '', autocomplete: 'off', name: 'model-id' }, 'Like gpt-4.1 or qwen3:8b.');
  const window = input('Context window (tokens)', { type: 'text', inputmode: 'numeric', value: String(entry?.contextWindow || 32768), name: 'context-window' });
  serial += 1;
  const imageId = `pm-${serial}`;
  const image = h('input', { type: 'checkbox', id: imageId, checked: Boolean(entry?.imageInput) });
  const remove = h('button', { type: 'button', class: 'danger' }, 'Remove this model');
  remove.addEventListener('click', onRemove);
  const set = h('fieldset', { class: 'pm-model' }, h('legend', {}, 'Model'), name.node, id.node, window.node, h('div', { class: 'field' }, h('label', { class: 'check', for: imageId }, image, 'Reads images')), remove);
  set.read = () => ({ name: name.control.value.trim(), model: id.control.value.trim(), contextWindow: Number(window.control.value.trim()), imageInput: image.checked });
  return set;
}

/** The add/edit form; `provider` is null to add one. */
function providerForm(ctx, provider, done) {
  const name = input('Provider name', { value: provider?.name || '', autocomplete: 'off', disabled: Boolean(provider) }, 'Letters, digits, - or _, like openai or local.');
  const url = input('Base URL', { value: provider?.baseUrl || '', autocomplete: 'off', placeholder: 'https://api.openai.com/v1' }, 'Up to the version, like http://127.0.0.1:11434/v1 for Ollama.');
  const keyHint = provider?.keySaved ? 'A key is saved; leave this empty to keep it.' : 'Kept as a saved secret on this host; leave empty for a server that needs none.';
  const key = input('API key', { type: 'password', autocomplete: 'off' }, keyHint);
  const list = h('div', { class: 'pm-models' });
  const add = (entry) => {
    const set = modelFieldset(entry, () => {
      set.remove();
      if (!list.children.length) add(null);
    });
    list.append(set);
  };
  for (const entry of provider?.models?.length ? provider.models : [null]) add(entry);
  const more = h('button', { type: 'button' }, 'Add another model');
  more.addEventListener('click', () => {
    add(null);
    list.lastElementChild.querySelector('input')?.focus();
  });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const save = h('button', { type: 'submit', class: 'primary' }, provider ? 'Save provider' : 'Add provider');
  const cancel = h('button', { type: 'button' }, 'Cancel');
  cancel.addEventListener('click', () => done(false));
  const form = h('form', { class: 'pm-form', 'aria-label': provider ? `Edit ${provider.name}` : 'Add a provider' }, name.node, url.node, key.node, list, h('div', { class: 'actions' }, more), error, h('div', { class: 'actions' }, save, cancel));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    save.disabled = true;
    const body = { name: provider?.name || name.control.value.trim(), baseUrl: url.control.value.trim(), models: [...list.children].map((set) => set.read()) };
    if (key.control.value) body.apiKey = key.control.value;
    try {
      await ctx.api.call('model-provider-set', body);
      key.control.value = '';
      done(true);
    } catch (refusal) {
      error.textContent = refusal.message;
      save.disabled = false;
    }
  });
  return form;
}

function keyWord(p) {
  if (p.key === 'saved') return p.keySaved ? 'key saved' : 'key missing';
  if (p.key === 'env') return 'key from the host’s environment';
  return 'no key';
}

/** The owner's providers panel; built once and kept across redraws so typing survives a team change. */
function providersPanel(ctx) {
  const panel = h('div', { class: 'pm-panel' });
  const status = h('p', { class: 'hint', role: 'status' });
  let editing = null; // a provider's name, '' to add one, null when no form is open
  let providers = [];
  const draw = () => {
    const rows = providers.map((p) => {
      if (editing === p.name) return providerForm(ctx, p, finish);
      const edit = h('button', { type: 'button' }, 'Edit', h('span', { class: 'sr-only' }, ` ${p.name}`));
      edit.addEventListener('click', () => open(p.name));
      const remove = h('button', { type: 'button', class: 'danger' }, 'Remove', h('span', { class: 'sr-only' }, ` ${p.name}`));
      const confirm = h('span', { hidden: true }, `Remove ${p.name} and its models? `);
      const yes = h('button', { type: 'button', class: 'danger' }, 'Yes, remove');
      const no = h('button', { type: 'button' }, 'Keep it');
      confirm.append(yes, no);
      remove.addEventListener('click', () => { remove.hidden = true; confirm.hidden = false; yes.focus(); });
      no.addEventListener('click', () => { confirm.hidden = true; remove.hidden = false; remove.focus(); });
      yes.addEventListener('click', async () => {
        yes.disabled = true;
        try {
          await ctx.api.call('model-provider-remove', { name: p.name });
          status.textContent = `${p.name} removed.`;
          await reload();
          await ctx.team.refresh();
        } catch (refusal) {
          status.textContent = refusal.message;
          yes.disabled = false;
        }
      });
      const models = p.models.map((m) => `${m.name} (${m.model}, ${m.contextWindow.toLocaleString()} tokens${m.imageInput ? ', images' : ''})`).join('; ');
      return h('div', { class: 'row' }, h('div', { class: 'grow' }, h('strong', {}, p.name), h('span', { class: 'hint' }, ` · ${p.baseUrl} · ${keyWord(p)}`), h('br'), h('span', { class: 'hint' }, models)), edit, remove, confirm);
    });
    const addButton = h('button', { type: 'button' }, 'Add a provider');
    addButton.addEventListener('click', () => open(''));
    replace(
      panel,
      h('h3', {}, 'Providers'),
      rows.length ? rows : h('p', { class: 'muted' }, 'No provider yet: Bots answer with the built-in mock. Add an OpenAI-compatible provider (OpenAI, DeepSeek, Ollama, vLLM…) to use a real model.'),
      editing === '' ? providerForm(ctx, null, finish) : h('div', { class: 'actions' }, addButton),
      status,
    );
  };
  const open = (name) => {
    editing = name;
    status.textContent = '';
    draw();
    panel.querySelector('form input:not([disabled])')?.focus();
  };
  async function finish(saved) {
    const was = editing;
    editing = null;
    if (saved) {
      status.textContent = was ? 'Saved; the next turn uses it.' : 'Added; Bots can pick its models now.';
      await reload();
      await ctx.team.refresh();
    } else draw();
  }
  async function reload() {
    try {
      providers = (await ctx.api.call('models-config', {})).providers;
    } catch (refusal) {
      status.textContent = refusal.message;
    }
    draw();
  }
  reload();
  return panel;
}

/** The owner's choice of the default model (a new Bot gets it), applied at once and written to config.toml; kept across redraws, its list synced from the team. */
function defaultPicker(ctx) {
  serial += 1;
  const id = `pm-${serial}`;
  const select = h('select', { id, name: 'default-model' });
  const save = h('button', { type: 'submit' }, 'Save default');
  const status = h('p', { class: 'hint', role: 'status' });
  const form = h('form', { class: 'pm-default', 'aria-label': 'Default model' },
    h('div', { class: 'field' }, h('label', { for: id }, 'Default model'), h('p', { class: 'hint' }, 'A new Bot runs on it unless you pick another.'), select),
    h('div', { class: 'actions' }, save), status);
  let shown = '';
  form.sync = () => {
    const { names = [], default: current = '' } = ctx.team.state.model || {};
    const key = `${current}|${names.join(',')}`;
    if (key === shown || document.activeElement === select) return;
    shown = key;
    replace(select, names.map((name) => h('option', { value: name, selected: name === current || null }, name)));
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    save.disabled = true;
    status.className = 'hint';
    try {
      const answer = await ctx.api.call('model-default-set', { model: select.value });
      status.textContent = `${answer.defaultModel} is the default now; new Bots get it.`;
      shown = '';
      await ctx.team.refresh();
    } catch (refusal) {
      status.className = 'form-error';
      status.textContent = refusal.message;
    } finally {
      save.disabled = false;
    }
  });
  return form;
}

/** The Models section: `section(title, ...children)` is Settings' own. */
export function modelsSection(ctx, keep, section) {
  const owner = isHostOwner(ctx.team.state);
  if (owner && !keep.providers) keep.providers = providersPanel(ctx);
  if (owner && !keep.defaultModel) keep.defaultModel = defaultPicker(ctx);
  keep.defaultModel?.sync();
  const parts = [...modelRows(ctx, keep, owner), owner ? keep.defaultModel : h('p', { class: 'hint' }, 'The host’s owner sets up providers and models.')];
  if (owner) parts.push(keep.providers);
  // One section for the screen's life, its rows changed only when they read
  // differently: a redraw never swaps the section being read or clicked.
  if (!keep.models) keep.models = section('Models');
  return redrawChildren(keep.models, [keep.models.firstElementChild, parts]);
}
