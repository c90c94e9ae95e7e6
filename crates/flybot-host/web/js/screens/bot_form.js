// Create or edit a Bot (#/bots/new, #/bot/<id>/edit), Duplicate and Delete (asked first), Retire (asked first; not a Main Bot).

import { h, replace } from '../dom.js';

/** A labelled field; `fields[key]` keeps its control and error line. */
function field(fields, key, labelText, control, hint) {
  const id = control.id;
  const error = h('p', { class: 'field-error', id: `${id}-error` });
  control.setAttribute('aria-describedby', `${id}-error${hint ? ` ${id}-hint` : ''}`);
  fields[key] = { error, control };
  return h('div', { class: 'field' }, h('label', { for: id }, labelText), hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null, control, error);
}

/** The configured models (state.model.names); a Bot's own model stays offered. */
export function modelNames(state, current) {
  const names = state.model?.names?.length ? [...state.model.names] : [state.model?.default].filter(Boolean);
  if (current && !names.includes(current)) names.push(current);
  return names;
}

export async function show(main, ctx, { botId }) {
  const state = ctx.team.state;
  const bot = botId ? (state.bots || []).find((b) => b.id === botId) : null;
  if (botId && !bot) {
    replace(main, h('h1', {}, 'No such Bot'), h('p', {}, 'This Bot does not exist or is not yours to edit.'));
    return;
  }
  const isMain = Boolean(bot && (state.mainBotIds || []).includes(bot.id));
  const external = bot?.external || null;

  const fields = {};
  const name = field(fields, 'name', 'Name', h('input', { id: 'bot-name', value: bot?.name || '', autocomplete: 'off', required: true }));
  const modelBox = h('select', { id: 'bot-model' }, modelNames(state, bot?.model).map((m) => h('option', { value: m }, m === state.model?.default ? `${m} (default)` : m)));
  modelBox.value = bot?.model || state.model?.default || '';
  const model = field(fields, 'model', 'Model', modelBox, 'The models config.toml declares.');
  const levels = [['least', 'Least (off where the model allows)'], ['low', 'Low'], ['medium', 'Medium'], ['high', 'High']];
  const thinkingBox = h('select', { id: 'bot-thinking' }, bot?.thinking ? [] : h('option', { value: '' }, "The model's own"), levels.map(([v, t]) => h('option', { value: v }, t)));
  thinkingBox.value = bot?.thinking || '';
  const thinking = field(fields, 'thinking', 'Thinking', thinkingBox, 'How hard the model thinks, where it can be told.');
  const tiers = [['default', 'Default'], ['lite', 'Lite'], ['medium', 'Medium'], ['heavy', 'Heavy']];
  const harnessBox = h('select', { id: 'bot-harness' }, tiers.map(([v, t]) => h('option', { value: v }, t)));
  harnessBox.value = bot?.harness || 'default';
  const harness = field(fields, 'harness', 'Harness', harnessBox, 'The tier its turns are counted under on the Usage screen. Tier budgets are declared, not yet enforced.');
  const instructionsBox = h('textarea', { id: 'bot-instructions', rows: '6' });
  instructionsBox.value = bot?.instructions || '';
  const instructions = field(fields, 'instructions', 'Instructions', instructionsBox, 'What this Bot is for and how it should work.');
  const role = field(fields, 'role', 'Role', h('input', { id: 'bot-role', value: bot?.role || '', autocomplete: 'off' }), 'Optional: the role it takes work for on the board, such as Dev.');
  const mainBox = h('input', { type: 'checkbox', id: 'bot-main', checked: isMain, disabled: isMain });
  const mainField = h(
    'div',
    { class: 'field' },
    h('label', { class: 'check', for: 'bot-main' }, mainBox, 'Main Bot'),
    h('p', { class: 'hint' }, isMain ? 'This is a Main Bot; it stays one.' : 'Main Bots are listed first and open when FlyBot opens.'),
  );

  const driver = h(
    'select',
    { id: 'bot-driver' },
    h('option', { value: '' }, 'None: FlyBot runs it on its model'),
    h('option', { value: 'subprocess' }, 'A program (subprocess)'),
    h('option', { value: 'opencode' }, 'OpenCode'),
  );
  driver.value = external ? external.driver || 'subprocess' : '';
  const commandBox = h('textarea', { id: 'bot-command', rows: '3' });
  commandBox.value = Array.isArray(external?.command) ? external.command.join('\n') : '';
  const command = field(fields, 'external.command', 'Command', commandBox, 'The program and its arguments, one per line.');
  const cwdBox = h('input', { id: 'bot-cwd', value: external?.cwd || '', autocomplete: 'off' });
  const cwd = field(fields, 'external.cwd', 'Working folder', cwdBox, 'Optional.');
  const programFields = h('div', {}, command, cwd);
  const showDriver = () => {
    programFields.hidden = driver.value !== 'subprocess';
  };
  driver.addEventListener('change', showDriver);
  showDriver();
  const driverBlock = h(
    'details',
    { class: 'field', open: Boolean(external) },
    h('summary', {}, 'External driver'),
    h('p', { class: 'hint' }, 'Optional: an outside agent answers for this Bot instead of a model.'),
    field(fields, 'external', 'Driver', driver),
    programFields,
  );

  const formError = h('p', { class: 'form-error', role: 'alert' });
  const clear = () => {
    formError.textContent = '';
    for (const { error, control } of Object.values(fields)) {
      error.textContent = '';
      error.parentNode.classList.remove('invalid');
      control.removeAttribute('aria-invalid');
    }
  };
  const refuse = (refusal) => {
    const key = refusal.field && Object.keys(fields).sort((a, b) => b.length - a.length).find((f) => refusal.field === f || refusal.field.startsWith(`${f}.`));
    const target = fields[key];
    if (!target) {
      formError.textContent = refusal.message;
      return;
    }
    target.error.textContent = refusal.message;
    target.error.parentNode.classList.add('invalid');
    target.control.setAttribute('aria-invalid', 'true');
    if (key.startsWith('external')) driverBlock.open = true;
    target.control.focus();
    formError.textContent = 'Please correct the marked field above.';
  };

  const externalValue = () => {
    if (!driver.value) return undefined;
    if (driver.value === 'opencode') return { driver: 'opencode' };
    const value = { driver: 'subprocess', command: commandBox.value.split('\n').map((s) => s.trim()).filter(Boolean) };
    if (cwdBox.value.trim()) value.cwd = cwdBox.value.trim();
    return value;
  };

  const save = h('button', { type: 'submit', class: 'primary' }, bot ? 'Save' : 'Create Bot');
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'bot-form-title' },
    name,
    model,
    thinking,
    harness,
    instructions,
    role,
    mainField,
    driverBlock,
    formError,
    h('div', { class: 'actions' }, save, h('a', { class: 'button', href: bot ? `#/bot/${bot.id}` : '#/' }, 'Cancel')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear();
    save.disabled = true;
    try {
      const body = {
        name: fields.name.control.value,
        model: fields.model.control.value.trim() || undefined,
        instructions: instructionsBox.value,
        role: fields.role.control.value.trim(),
      };
      if (thinkingBox.value) body.thinking = thinkingBox.value;
      if (harnessBox.value !== (bot?.harness || 'default')) body.harness = harnessBox.value;
      const ext = externalValue();
      if (ext && JSON.stringify(ext) !== JSON.stringify(external)) body.external = ext;
      let id = bot?.id;
      if (bot) {
        await ctx.api.call('update-bot', { id, ...body });
      } else {
        if (!body.role) delete body.role;
        id = (await ctx.api.call('create-bot', body)).bot.id;
      }
      if (mainBox.checked && !isMain) await ctx.api.call('set-main', { id });
      await ctx.team.refresh();
      ctx.navigate(`#/bot/${id}`);
    } catch (refusal) {
      refuse(refusal);
    } finally {
      save.disabled = false;
    }
  });

  const extra = bot ? manage(ctx, bot, formError, isMain) : null;
  replace(main, h('h1', { id: 'bot-form-title' }, bot ? `Edit ${bot.name}` : 'New Bot'), form, extra);
  fields.name.control.focus();
}

/** Duplicate, Retire (not a Main Bot) and Delete, each asked first, for an existing Bot. */
function manage(ctx, bot, formError, isMain) {
  const area = h('div');
  const duplicate = h('button', { type: 'button' }, 'Duplicate');
  duplicate.addEventListener('click', async () => {
    duplicate.disabled = true;
    const here = location.hash;
    try {
      const copy = (await ctx.api.call('duplicate-bot', { id: bot.id })).bot;
      await ctx.team.refresh();
      // The copy's form opens only while the person is still on this Bot's form (a live redraw of it may
      // have replaced this button): a late answer never draws over what the person went to since.
      if (location.hash === here) ctx.navigate(`#/bot/${copy.id}/edit`);
    } catch (refusal) {
      formError.textContent = refusal.message;
    } finally {
      duplicate.disabled = false;
    }
  });
  /** A button that asks `question` first, then calls `endpoint` and goes home. */
  const asked = (label, yesLabel, endpoint, question, detail) => {
    const button = h('button', { type: 'button', class: 'danger' }, label);
    button.addEventListener('click', () => {
      const yes = h('button', { type: 'button', class: 'danger primary' }, yesLabel);
      const no = h('button', { type: 'button' }, 'Keep it');
      const error = h('p', { class: 'form-error', role: 'alert' });
      const id = `confirm-${endpoint}`;
      const confirm = h('div', { class: 'confirm', role: 'alertdialog', 'aria-labelledby': id }, h('p', { id }, h('strong', {}, question), ` ${detail}`), h('div', { class: 'actions' }, yes, no), error);
      no.addEventListener('click', () => {
        confirm.remove();
        button.hidden = false;
        button.focus();
      });
      yes.addEventListener('click', async () => {
        yes.disabled = true;
        try {
          await ctx.api.call(endpoint, { id: bot.id });
          await ctx.team.refresh();
          ctx.navigate('#/');
        } catch (refusal) {
          error.textContent = refusal.message;
          yes.disabled = false;
        }
      });
      button.hidden = true;
      area.append(confirm);
      no.focus();
    });
    return button;
  };
  const retire = isMain ? null : asked('Retire', `Retire ${bot.name}`, 'retire-bot', `Retire ${bot.name}?`, 'It leaves the sidebar and takes no new work; its record and chat are kept.');
  const remove = asked('Delete Bot', `Delete ${bot.name}`, 'delete-bot', `Delete ${bot.name}?`, 'Its unfinished tasks fail, it leaves its rooms, and its chat is kept only in the home folder. This cannot be undone.');
  area.prepend(h('h2', {}, 'More'), h('div', { class: 'actions' }, duplicate, retire, remove));
  return area;
}
