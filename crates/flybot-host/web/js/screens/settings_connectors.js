// Settings, Connectors and keys: the host's MCP servers (add one by a program and its arguments, one per line, or by address, with plain variables, variables from saved keys and the tools that ask first; remove it after a confirmation that says what goes; choose which of your Bots use it; retry one that failed to start) and its saved keys (save, replace, delete after a confirmation; a value is never shown back). What is offered follows `actor.sharedSurfaces` (issue 39): on a shared host its owner reads the rows and retries, and nobody adds or changes anything. The host refuses what it would refuse from any client, and the refusal is shown beside the form.

import { h, replace, when, plural } from '../dom.js';

function scopeText(scope, bots) {
  if (scope === 'all') return 'for all of your Bots';
  if (!scope.length) return 'for no Bot (the host uses it)';
  const names = scope.map((id) => bots.find((b) => b.id === id)?.name || id);
  return `for ${names.join(', ')}`;
}

/** Who a key's deletion takes it from, as a sentence's subject. */
function holders(scope, bots) {
  if (scope === 'all') return 'your Bots';
  if (!scope.length) return 'the host';
  return scope.map((id) => bots.find((b) => b.id === id)?.name || id).join(', ');
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

/** A labelled textarea of one entry per line. */
function linesField(id, label, hint, rows = 3) {
  const control = h('textarea', { id, name: id, rows, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': `${id}-hint` });
  return { control, node: h('div', { class: 'field' }, h('label', { for: id }, label), h('p', { class: 'hint', id: `${id}-hint` }, hint), control) };
}

/** The non-empty lines of a textarea, trimmed. */
const linesOf = (control) => control.value.split('\n').map((l) => l.trim()).filter(Boolean);

/** `NAME=value` lines as an object; a line with no `=` throws a sentence a person can act on. */
function variablesOf(control) {
  const env = {};
  for (const line of linesOf(control)) {
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`"${line}" is not NAME=value; write one variable per line, like LOG_LEVEL=debug.`);
    env[line.slice(0, at).trim()] = line.slice(at + 1);
  }
  return env;
}

/** Variables whose values are saved keys, chosen by the key's name (the value is never shown): rows of a name and a key picker. */
function keyVariables() {
  const list = h('div', { class: 'key-vars' });
  let keys = [];
  const row = () => {
    const n = list.children.length + 1;
    const name = h('input', { id: `mcp-kv-name-${n}`, autocomplete: 'off', spellcheck: 'false', 'aria-label': `Variable ${n} name` });
    const pick = h('select', { 'aria-label': `Variable ${n} saved key` }, keys.map((k) => h('option', { value: k }, k)));
    const drop = h('button', { type: 'button', 'aria-label': `Remove variable ${n}` }, 'Remove');
    const line = h('div', { class: 'key-var' }, name, h('span', { 'aria-hidden': 'true' }, ' = saved key '), pick, drop);
    drop.addEventListener('click', () => line.remove());
    list.append(line);
    name.focus();
  };
  const add = h('button', { type: 'button' }, 'Add a variable from a saved key');
  add.addEventListener('click', row);
  const none = h('p', { class: 'hint' }, 'Save a key below first; then a variable can take its value.');
  const node = h('fieldset', { class: 'field' }, h('legend', {}, 'Variables from saved keys'), h('p', { class: 'hint' }, 'The server gets the key\'s value under the variable\'s name; the value is never shown.'), list, none, h('div', { class: 'actions' }, add));
  return {
    node,
    drawKeys(names) {
      keys = names;
      add.hidden = !names.length;
      none.hidden = Boolean(names.length);
      for (const pick of list.querySelectorAll('select')) {
        const was = pick.value;
        replace(pick, names.map((k) => h('option', { value: k, selected: k === was || null }, k)));
      }
    },
    read() {
      const out = {};
      for (const line of list.children) {
        const name = line.querySelector('input').value.trim();
        const key = line.querySelector('select').value;
        if (name) out[name] = key;
      }
      return out;
    },
    clear: () => replace(list),
  };
}

/** How the server is reached: a program and its arguments (one per line: an argument may hold spaces, and nothing is split), or an address. */
function serverPlace() {
  const program = h('input', { id: 'mcp-command', name: 'mcp-command', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'mcp-command-hint' });
  const args = linesField('mcp-args', 'Arguments', 'One per line, as the program gets them: a line with spaces stays one argument, and no quotes are needed.');
  const url = h('input', { id: 'mcp-url', name: 'mcp-url', type: 'url', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'mcp-url-hint' });
  const byCommand = h('input', { type: 'radio', name: 'mcp-how', id: 'mcp-how-command', value: 'command', checked: true });
  const byUrl = h('input', { type: 'radio', name: 'mcp-how', id: 'mcp-how-url', value: 'url' });
  const commandFields = h('div', {}, h('div', { class: 'field' }, h('label', { for: 'mcp-command' }, 'Program'), h('p', { class: 'hint', id: 'mcp-command-hint' }, 'Such as npx or node; it runs in its own sandbox.'), program), args.node);
  const urlField = h('div', { class: 'field', hidden: true }, h('label', { for: 'mcp-url' }, 'Address'), h('p', { class: 'hint', id: 'mcp-url-hint' }, 'An https:// address of a server that speaks MCP over HTTP; a variable AUTHORIZATION_TOKEN is sent as its key.'), url);
  const pick = () => {
    commandFields.hidden = !byCommand.checked;
    urlField.hidden = byCommand.checked;
  };
  byCommand.addEventListener('change', pick);
  byUrl.addEventListener('change', pick);
  return {
    nodes: [h('fieldset', { class: 'field how' }, h('legend', {}, 'It runs'), h('label', { class: 'check', for: 'mcp-how-command' }, byCommand, 'As a program on this machine'), h('label', { class: 'check', for: 'mcp-how-url' }, byUrl, 'At an address')), commandFields, urlField],
    fill(body) {
      if (byCommand.checked) body.command = [program.value.trim(), ...linesOf(args.control)].filter(Boolean);
      else body.url = url.value.trim();
    },
    clear() {
      program.value = '';
      args.control.value = '';
      url.value = '';
    },
  };
}

/** The form that adds an MCP server, built once and kept across redraws; `drawKeys(names)` follows the saved keys. */
function addServerForm(ctx) {
  const name = h('input', { id: 'mcp-name', name: 'mcp-name', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'mcp-name-hint' });
  const place = serverPlace();
  const vars = linesField('mcp-env', 'Variables', 'One NAME=value per line, for settings that are not secret.');
  const keyVars = keyVariables();
  const approvals = linesField('mcp-approval', 'Tools that ask you first', 'The server\'s own tool names, one per line: each call of one waits for your approval in the Inbox.', 2);
  const error = h('p', { class: 'form-error', role: 'alert' });
  const status = h('p', { class: 'hint', role: 'status' });
  const add = h('button', { type: 'submit', class: 'primary' }, 'Add server');
  const form = h(
    'form',
    { class: 'connector-form', 'aria-labelledby': 'mcp-add-title' },
    h('h4', { id: 'mcp-add-title' }, 'Add an MCP server'),
    h('div', { class: 'field' }, h('label', { for: 'mcp-name' }, 'Name'), h('p', { class: 'hint', id: 'mcp-name-hint' }, 'Lowercase letters, digits and dashes; its tools are named after it.'), name),
    place.nodes,
    vars.node,
    keyVars.node,
    approvals.node,
    h('div', { class: 'actions' }, add),
    error,
    status,
  );
  form.drawKeys = keyVars.drawKeys;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    status.textContent = '';
    const body = { id: name.value.trim() };
    try {
      place.fill(body);
      const env = variablesOf(vars.control);
      const secretEnv = keyVars.read();
      const approval = linesOf(approvals.control);
      if (Object.keys(env).length) body.env = env;
      if (Object.keys(secretEnv).length) body.secretEnv = secretEnv;
      if (approval.length) body.approval = approval;
    } catch (mistake) {
      error.textContent = mistake.message;
      return;
    }
    add.disabled = true;
    status.textContent = 'Starting the server…';
    try {
      const { connector } = await ctx.api.call('connector-connect', body);
      status.textContent = connector.status === 'ready' ? `Added ${connector.id}: ${plural(connector.tools?.length || 0, 'tool')}.` : `Added ${connector.id}; it is ${connector.status}.`;
      name.value = '';
      place.clear();
      vars.control.value = '';
      approvals.control.value = '';
      keyVars.clear();
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

/** A destructive button that first asks, saying what goes; the answer calls the host and refreshes the team. The question takes the focus; Keep it gives it back to the button. */
function confirmedButton(ctx, error, { label, name, question, yes, call }) {
  const ask = h('button', { type: 'button', class: 'danger', 'aria-label': `${label} ${name}` }, label);
  const holder = h('span', { class: 'confirmed' }, ask);
  // The question is made when asked, so the row's text holds nothing hidden.
  ask.addEventListener('click', () => {
    const sure = h('button', { type: 'button', class: 'danger' }, yes);
    const keep = h('button', { type: 'button' }, 'Keep it');
    const confirm = h('span', { class: 'confirm', role: 'group', 'aria-label': `${label} ${name}?` }, h('span', {}, question, ' '), sure, keep);
    keep.addEventListener('click', () => {
      confirm.remove();
      ask.hidden = false;
      ask.focus();
    });
    sure.addEventListener('click', async () => {
      error.textContent = '';
      sure.disabled = true;
      try {
        await call();
        await ctx.team.refresh();
      } catch (refusal) {
        error.textContent = refusal.message;
        sure.disabled = false;
      }
    });
    ask.hidden = true;
    holder.append(confirm);
    sure.focus();
  });
  return holder;
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
  const users = bots.filter((b) => b.connectors?.[c.id] !== false).length;
  const goes = c.kind === 'channel'
    ? `Remove ${c.id}? Its channel stops${bot ? ` and ${bot} no longer hears from it` : ''}; the Bot and its chat stay.`
    : `Remove ${c.id}? Its ${plural(c.toolCount || 0, 'tool')} leave${c.toolCount === 1 ? 's' : ''} ${plural(users, 'Bot')} that use${users === 1 ? 's' : ''} it, and its server stops; saved keys stay.`;
  const remove = manage ? confirmedButton(ctx, error, { label: 'Remove', name: c.id, question: goes, yes: 'Yes, remove', call: () => ctx.api.call('connector-disconnect', { id: c.id }) }) : null;
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
  keep.addServer.drawKeys((state.secrets || []).map((k) => k.name));
  keep.openSwitches ||= new Set();
  const rows = (state.connectors || []).map((c) => connectorRow(ctx, error, c, mine, keep.openSwitches, manage));
  const keys = (state.secrets || []).map((s) =>
    h(
      'div',
      { class: 'row' },
      h('div', { class: 'grow' }, h('strong', {}, s.name), h('br'), h('span', { class: 'hint' }, `${scopeText(s.scope, bots)} · saved ${when(s.updatedAt)}`)),
      manage
        ? confirmedButton(ctx, error, {
          label: 'Delete',
          name: s.name,
          question: `Delete ${s.name}? Its value is gone for good: ${holders(s.scope, bots)} no longer get${s.scope !== 'all' && s.scope.length === 1 ? 's' : ''} it, and a connector that reads it fails at its next start.`,
          yes: 'Yes, delete',
          call: () => ctx.api.call('secret-delete', { name: s.name }),
        })
        : null,
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
