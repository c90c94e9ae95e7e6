// Settings, Connectors and keys: the host's MCP servers (add one by command or address, remove it, choose which of your Bots use it, retry one that failed to start) and its saved keys (save, replace, delete; a value is never shown back). What is offered follows `actor.sharedSurfaces` (issue 39): on a shared host its owner reads the rows and retries, and nobody adds or changes anything. The host refuses what it would refuse from any client, and the refusal is shown beside the form.

import { h, replace, when, plural } from '../dom.js';

function scopeText(scope, bots) {
  if (scope === 'all') return 'for all of your Bots';
  if (!scope.length) return 'for no Bot (the host uses it)';
  const names = scope.map((id) => bots.find((b) => b.id === id)?.name || id);
  return `for ${names.join(', ')}`;
}

/** A button that calls the host, then refreshes the team; a refusal goes to `error`. */
function actButton(ctx, error, label, name, call, cls = '') {
  const b = h('button', { type: 'button', class: cls || null, 'aria-label': `${label} ${name}` }, label);
  b.addEventListener('click', async () => {
    error.textContent = '';
    b.disabled = true;
    try {
      await call();
      await ctx.team.refresh();
    } catch (refusal) {
      error.textContent = refusal.message;
      b.disabled = false;
    }
  });
  return b;
}

/** The form that adds an MCP server, built once and kept across redraws. */
function addServerForm(ctx) {
  const name = h('input', { id: 'mcp-name', name: 'mcp-name', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'mcp-name-hint' });
  const command = h('input', { id: 'mcp-command', name: 'mcp-command', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'mcp-command-hint' });
  const url = h('input', { id: 'mcp-url', name: 'mcp-url', type: 'url', autocomplete: 'off', spellcheck: 'false', hidden: true, 'aria-describedby': 'mcp-url-hint' });
  const byCommand = h('input', { type: 'radio', name: 'mcp-how', id: 'mcp-how-command', value: 'command', checked: true });
  const byUrl = h('input', { type: 'radio', name: 'mcp-how', id: 'mcp-how-url', value: 'url' });
  const commandField = h('div', { class: 'field' }, h('label', { for: 'mcp-command' }, 'Command'), h('p', { class: 'hint', id: 'mcp-command-hint' }, 'The program and its arguments, separated by spaces; it runs in its own sandbox.'), command);
  const urlField = h('div', { class: 'field', hidden: true }, h('label', { for: 'mcp-url' }, 'Address'), h('p', { class: 'hint', id: 'mcp-url-hint' }, 'An https:// address of a server that speaks MCP over HTTP.'), url);
  const pick = () => {
    commandField.hidden = !byCommand.checked;
    urlField.hidden = byCommand.checked;
    command.hidden = !byCommand.checked;
    url.hidden = byCommand.checked;
  };
  byCommand.addEventListener('change', pick);
  byUrl.addEventListener('change', pick);
  const error = h('p', { class: 'form-error', role: 'alert' });
  const status = h('p', { class: 'hint', role: 'status' });
  const add = h('button', { type: 'submit', class: 'primary' }, 'Add server');
  const form = h(
    'form',
    { class: 'connector-form', 'aria-labelledby': 'mcp-add-title' },
    h('h4', { id: 'mcp-add-title' }, 'Add an MCP server'),
    h('div', { class: 'field' }, h('label', { for: 'mcp-name' }, 'Name'), h('p', { class: 'hint', id: 'mcp-name-hint' }, 'Lowercase letters, digits and dashes; its tools are named after it.'), name),
    h('fieldset', { class: 'field how' }, h('legend', {}, 'It runs'), h('label', { class: 'check', for: 'mcp-how-command' }, byCommand, 'As a program on this machine'), h('label', { class: 'check', for: 'mcp-how-url' }, byUrl, 'At an address')),
    commandField,
    urlField,
    h('div', { class: 'actions' }, add),
    error,
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    status.textContent = '';
    const body = { id: name.value.trim() };
    if (byCommand.checked) body.command = command.value.trim().split(/\s+/).filter(Boolean);
    else body.url = url.value.trim();
    add.disabled = true;
    status.textContent = 'Starting the server…';
    try {
      const { connector } = await ctx.api.call('connector-connect', body);
      status.textContent = connector.status === 'ready' ? `Added ${connector.id}: ${plural(connector.tools?.length || 0, 'tool')}.` : `Added ${connector.id}; it is ${connector.status}.`;
      name.value = '';
      command.value = '';
      url.value = '';
      await ctx.team.refresh();
    } catch (refusal) {
      status.textContent = '';
      error.textContent = refusal.message;
    } finally {
      add.disabled = false;
    }
  });
  return form;
}

/** The form that saves a key, built once and kept across redraws; the value field is emptied once saved. */
function saveKeyForm(ctx) {
  const name = h('input', { id: 'key-name', name: 'key-name', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'key-name-hint' });
  const value = h('input', { id: 'key-value', name: 'key-value', type: 'password', autocomplete: 'new-password', spellcheck: 'false' });
  const all = h('input', { type: 'checkbox', id: 'key-all', checked: true });
  const chosen = h('div', { class: 'key-bots', hidden: true });
  all.addEventListener('change', () => {
    chosen.hidden = all.checked;
  });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const status = h('p', { class: 'hint', role: 'status' });
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save key');
  const form = h(
    'form',
    { class: 'connector-form', 'aria-labelledby': 'key-add-title' },
    h('h4', { id: 'key-add-title' }, 'Save a key'),
    h('div', { class: 'field' }, h('label', { for: 'key-name' }, 'Name'), h('p', { class: 'hint', id: 'key-name-hint' }, 'Such as GITHUB_TOKEN: the name your Bots\' commands read it by. Saving a name that exists replaces its value.'), name),
    h('div', { class: 'field' }, h('label', { for: 'key-value' }, 'Value'), value),
    h('fieldset', { class: 'field' }, h('legend', {}, 'Which Bots get it'), h('label', { class: 'check', for: 'key-all' }, all, 'All of my Bots'), chosen),
    h('div', { class: 'actions' }, save),
    error,
    status,
  );
  form.drawBots = (bots) => {
    const picked = new Set([...chosen.querySelectorAll('input:checked')].map((b) => b.value));
    replace(
      chosen,
      bots.length ? bots.map((b) => h('label', { class: 'check' }, h('input', { type: 'checkbox', value: b.id, checked: picked.has(b.id) }), b.name)) : h('p', { class: 'hint' }, 'You have no Bot yet.'),
    );
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    status.textContent = '';
    const scope = all.checked ? 'all' : [...chosen.querySelectorAll('input:checked')].map((b) => b.value);
    save.disabled = true;
    try {
      const { secret } = await ctx.api.call('secret-set', { name: name.value.trim(), value: value.value, scope });
      status.textContent = `Saved ${secret.name}.`;
      name.value = '';
      value.value = '';
      await ctx.team.refresh();
    } catch (refusal) {
      error.textContent = refusal.message;
    } finally {
      save.disabled = false;
    }
  });
  return form;
}

/** Which of the person's Bots use a server: one switch per Bot. */
function botSwitches(ctx, error, connector, bots, opened) {
  if (!bots.length) return null;
  const boxes = bots.map((bot) => {
    const id = `use-${connector.id}-${bot.id}`;
    const box = h('input', { type: 'checkbox', id, checked: bot.connectors?.[connector.id] !== false });
    box.addEventListener('change', async () => {
      error.textContent = '';
      box.disabled = true;
      try {
        await ctx.api.call('bot-connectors', { botId: bot.id, connector: connector.id, enabled: box.checked });
        await ctx.team.refresh();
      } catch (refusal) {
        box.checked = !box.checked;
        error.textContent = refusal.message;
      } finally {
        box.disabled = false;
      }
    });
    return h('label', { class: 'check', for: id }, box, bot.name);
  });
  const on = bots.filter((b) => b.connectors?.[connector.id] !== false).length;
  // A redraw (after a switch) keeps the list open, and the focus in it.
  const details = h('details', { class: 'bot-switches', open: opened.has(connector.id) });
  details.addEventListener('toggle', () => (details.open ? opened.add(connector.id) : opened.delete(connector.id)));
  return replace(details, h('summary', {}, `Used by ${on} of ${plural(bots.length, 'Bot')}`, h('span', { class: 'sr-only' }, ` (${connector.id})`)), h('div', { class: 'switch-list' }, boxes));
}

/** A connector's row; `manage` says whether this person may remove it and switch it per Bot (a home of one person), and a saved server that failed to start has a Retry for whoever reads the rows (issue 39). */
function connectorRow(ctx, error, c, bots, opened, manage) {
  const bot = c.botId ? bots.find((b) => b.id === c.botId)?.name || c.botId : null;
  const tools = c.status === 'ready' ? `MCP server · ${plural(c.toolCount, 'tool')}` : 'MCP server';
  const what = c.kind === 'channel' ? `Feishu channel${bot ? ` to ${bot}` : ''}` : tools;
  const remove = manage ? actButton(ctx, error, 'Remove', c.id, () => ctx.api.call('connector-disconnect', { id: c.id }), 'danger') : null;
  const retry = c.kind === 'mcp' && c.status === 'error' ? actButton(ctx, error, 'Retry', c.id, () => ctx.api.call('connector-retry', { id: c.id })) : null;
  return h(
    'div',
    { class: 'row connector' },
    h('div', { class: 'grow' }, h('strong', {}, c.id), h('br'), h('span', { class: 'hint' }, what), c.error ? h('br') : null, c.error ? h('span', { class: 'bad' }, c.error) : null),
    h('span', { class: c.status === 'ready' ? 'ok' : c.status === 'error' ? 'bad' : 'muted' }, c.status),
    retry,
    remove,
    c.kind === 'channel' || !manage ? null : h('div', { class: 'row-foot' }, botSwitches(ctx, error, c, bots, opened)),
  );
}

/** The section; `keep` holds the two forms across the screen's redraws. */
export function connectorsSection(ctx, section, keep) {
  const state = ctx.team.state;
  const bots = state.bots || [];
  // What this person may do with them, as the host decides it (issue 39).
  const reach = state.actor?.sharedSurfaces || 'blocked';
  if (reach === 'blocked') {
    return section('Connectors and keys', h('p', { class: 'muted' }, 'Connectors and saved keys belong to the host\'s owner; with more than one member they are not shown to anyone else.'));
  }
  const manage = reach === 'manage';
  keep.addServer ||= addServerForm(ctx);
  keep.saveKey ||= saveKeyForm(ctx);
  keep.connectorError ||= h('p', { class: 'form-error', role: 'alert' });
  const error = keep.connectorError;
  const mine = bots.filter((b) => !b.hidden && !b.retired && b.sessionId);
  keep.saveKey.drawBots(mine);
  keep.openSwitches ||= new Set();
  const rows = (state.connectors || []).map((c) => connectorRow(ctx, error, c, mine, keep.openSwitches, manage));
  const keys = (state.secrets || []).map((s) =>
    h(
      'div',
      { class: 'row' },
      h('div', { class: 'grow' }, h('strong', {}, s.name), h('br'), h('span', { class: 'hint' }, `${scopeText(s.scope, bots)} · saved ${when(s.updatedAt)}`)),
      manage ? actButton(ctx, error, 'Delete', s.name, () => ctx.api.call('secret-delete', { name: s.name }), 'danger') : null,
    ),
  );
  const watching = manage
    ? null
    : h('p', { class: 'hint' }, 'This host has more than one member: connectors and keys stay as you set them up, for your own Bots only, and cannot be added, changed or removed until you are its only member again.');
  return section(
    'Connectors and keys',
    watching,
    h('h3', {}, 'Connectors'),
    rows.length ? rows : h('p', { class: 'muted' }, 'No connector yet.'),
    error,
    manage ? keep.addServer : null,
    h('h3', {}, 'Saved keys'),
    keys.length ? keys : h('p', { class: 'muted' }, 'No key saved yet.'),
    h('p', { class: 'hint' }, 'A key\'s value is never shown here or anywhere else.'),
    manage ? keep.saveKey : null,
  );
}
