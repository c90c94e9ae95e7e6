// Create or edit a Bot (#/bots/new, #/bot/<id>/edit): name, model (from the
// models the page knows: the default and those Bots use; the host has no
// list of configured models to offer yet), instructions, queue role, Main
// Bot (`set-main`), and an external driver (#198). Edit adds Duplicate and
// Delete (which asks first). A refusal is shown beside the field its
// `details.field` names, else above the buttons.

import { h, replace } from '../dom.js';

const FIELDS = ['name', 'model', 'instructions', 'role', 'external'];

function field(id, labelText, control, hint) {
  const error = h('p', { class: 'field-error', id: `${id}-error` });
  control.setAttribute('aria-describedby', `${id}-error${hint ? ` ${id}-hint` : ''}`);
  return {
    element: h('div', { class: 'field' }, h('label', { for: id }, labelText), hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null, control, error),
    error,
    control,
  };
}

function knownModels(state) {
  const names = new Set([state.model?.default, ...(state.bots || []).map((b) => b.model)].filter(Boolean));
  return [...names].sort();
}

export async function show(main, ctx, { botId }) {
  main.className = '';
  const state = ctx.team.state;
  const bot = botId ? (state.bots || []).find((b) => b.id === botId) : null;
  if (botId && !bot) {
    replace(main, h('h1', {}, 'No such Bot'), h('p', {}, 'This Bot does not exist or is not yours to edit.'));
    return;
  }
  const isMain = Boolean(bot && (state.mainBotIds || []).includes(bot.id));
  const external = bot?.external || null;

  const name = field('bot-name', 'Name', h('input', { id: 'bot-name', value: bot?.name || '', autocomplete: 'off', required: true }));
  const models = knownModels(state);
  const modelList = h('datalist', { id: 'bot-models' }, models.map((m) => h('option', { value: m })));
  const model = field(
    'bot-model',
    'Model',
    h('input', { id: 'bot-model', list: 'bot-models', value: bot?.model || state.model?.default || '', autocomplete: 'off' }),
    'A [models.<name>] key from config.toml, or "mock".',
  );
  const instructionsBox = h('textarea', { id: 'bot-instructions', rows: '6' });
  instructionsBox.value = bot?.instructions || '';
  const instructions = field('bot-instructions', 'Instructions', instructionsBox, 'What this Bot is for and how it should work.');
  const role = field('bot-role', 'Role', h('input', { id: 'bot-role', value: bot?.role || '', autocomplete: 'off' }), 'Optional: the role it takes work for on the board, such as Dev.');
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
  const command = field('bot-command', 'Command', commandBox, 'The program and its arguments, one per line.');
  const cwd = field('bot-cwd', 'Working folder', h('input', { id: 'bot-cwd', value: external?.cwd || '', autocomplete: 'off' }), 'Optional.');
  const externalError = h('p', { class: 'field-error', id: 'bot-driver-error' });
  driver.setAttribute('aria-describedby', 'bot-driver-error');
  const programFields = h('div', {}, command.element, cwd.element);
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
    h('div', { class: 'field' }, h('label', { for: 'bot-driver' }, 'Driver'), driver, externalError),
    programFields,
  );

  const formError = h('p', { class: 'form-error', role: 'alert' });
  const errors = { name: name.error, model: model.error, instructions: instructions.error, role: role.error, external: externalError, 'external.command': command.error, 'external.cwd': cwd.error };
  const controls = { name: name.control, model: model.control, instructions: instructions.control, role: role.control, external: driver, 'external.command': commandBox, 'external.cwd': cwd.control };
  const clear = () => {
    formError.textContent = '';
    for (const [key, el] of Object.entries(errors)) {
      el.textContent = '';
      el.closest('.field')?.classList.remove('invalid');
      controls[key]?.removeAttribute('aria-invalid');
    }
  };
  const refuse = (refusal) => {
    const key = refusal.field && (errors[refusal.field] ? refusal.field : FIELDS.find((f) => refusal.field.startsWith(f)));
    if (key && errors[key]) {
      errors[key].textContent = refusal.message;
      errors[key].closest('.field')?.classList.add('invalid');
      controls[key]?.setAttribute('aria-invalid', 'true');
      if (key.startsWith('external')) driverBlock.open = true;
      controls[key]?.focus();
      formError.textContent = 'Please correct the marked field above.';
    } else {
      formError.textContent = refusal.message;
    }
  };

  const externalValue = () => {
    if (!driver.value) return undefined;
    if (driver.value === 'opencode') return { driver: 'opencode' };
    const value = { driver: 'subprocess', command: commandBox.value.split('\n').map((s) => s.trim()).filter(Boolean) };
    if (cwd.control.value.trim()) value.cwd = cwd.control.value.trim();
    return value;
  };

  const save = h('button', { type: 'submit', class: 'primary' }, bot ? 'Save' : 'Create Bot');
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'bot-form-title' },
    name.element,
    model.element,
    modelList,
    instructions.element,
    role.element,
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
        name: name.control.value,
        model: model.control.value.trim() || undefined,
        instructions: instructionsBox.value,
        role: role.control.value.trim(),
      };
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

  const extra = bot ? manage(ctx, bot, formError) : null;
  replace(main, h('h1', { id: 'bot-form-title' }, bot ? `Edit ${bot.name}` : 'New Bot'), form, extra);
  name.control.focus();
}

/** Duplicate and Delete (with its confirmation) for an existing Bot. */
function manage(ctx, bot, formError) {
  const area = h('div');
  const duplicate = h('button', { type: 'button' }, 'Duplicate');
  const remove = h('button', { type: 'button', class: 'danger' }, 'Delete Bot');
  duplicate.addEventListener('click', async () => {
    duplicate.disabled = true;
    try {
      const copy = (await ctx.api.call('duplicate-bot', { id: bot.id })).bot;
      await ctx.team.refresh();
      ctx.navigate(`#/bot/${copy.id}/edit`);
    } catch (refusal) {
      formError.textContent = refusal.message;
    } finally {
      duplicate.disabled = false;
    }
  });
  remove.addEventListener('click', () => {
    const yes = h('button', { type: 'button', class: 'danger primary' }, `Delete ${bot.name}`);
    const no = h('button', { type: 'button' }, 'Keep it');
    const error = h('p', { class: 'form-error', role: 'alert' });
    const confirm = h(
      'div',
      { class: 'confirm', role: 'alertdialog', 'aria-labelledby': 'confirm-delete' },
      h('p', { id: 'confirm-delete' }, h('strong', {}, `Delete ${bot.name}?`), ' Its unfinished tasks fail, it leaves its rooms, and its chat is kept only in the home folder. This cannot be undone.'),
      h('div', { class: 'actions' }, yes, no),
      error,
    );
    no.addEventListener('click', () => {
      confirm.remove();
      remove.hidden = false;
      remove.focus();
    });
    yes.addEventListener('click', async () => {
      yes.disabled = true;
      try {
        await ctx.api.call('delete-bot', { id: bot.id });
        await ctx.team.refresh();
        ctx.navigate('#/');
      } catch (refusal) {
        error.textContent = refusal.message;
        yes.disabled = false;
      }
    });
    remove.hidden = true;
    area.append(confirm);
    no.focus();
  });
  area.prepend(h('h2', {}, 'More'), h('div', { class: 'actions' }, duplicate, remove));
  return area;
}
