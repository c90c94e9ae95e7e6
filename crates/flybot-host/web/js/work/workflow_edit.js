// Changing a workflow (#1272 step 3, #1299): `workflow-customize` copies one under a new id, `workflow-save` writes an edited one.

import { h, replace } from '../dom.js';
import { attempt, field, alertLine, clearRefusal } from './ui.js';

/** The Customize form; `onCustomized(id)` opens the copy. */
export function customizeForm({ api, from, fromName, onCustomized }) {
  const id = h('input', { type: 'text', name: 'id', autocomplete: 'off', required: true, placeholder: `${from}-ours` });
  const name = h('input', { type: 'text', name: 'name', autocomplete: 'off', required: true });
  name.value = `${fromName} (ours)`;
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Customize');
  const form = h('form', {
    class: 'w-wf-form',
    'aria-label': 'Customize',
    onsubmit: (event) => {
      event.preventDefault();
      attempt(form, submit, async () => {
        const answer = await api.call('workflow-customize', { from, id: id.value.trim(), name: name.value.trim() });
        onCustomized(answer.id);
      });
    },
  });
  replace(
    form,
    h('p', { class: 'muted' }, 'Save a copy under a new id; the copy can be edited and saved.'),
    alertLine(),
    h('div', { class: 'w-form-pair' }, field('New id', id, { name: 'id', hint: 'Lowercase letters, digits and hyphens.' }), field('New name', name, { name: 'name' })),
    h('div', { class: 'w-move-row' }, submit),
  );
  return form;
}

/** The definition editor (JSON); `onSaved(answer)` after an accepted save. */
export function definitionEditor({ api, workflow, onSaved }) {
  const text = h('textarea', { name: 'definition', rows: 16, spellcheck: 'false', class: 'w-code' });
  text.value = workflow.bytes || JSON.stringify(workflow.definition, null, 2);
  const problems = h('ul', { class: 'w-problems', hidden: true });
  const saved = h('p', { class: 'w-ok-line', role: 'status' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Save workflow');
  const form = h('form', {
    class: 'w-wf-form',
    'aria-label': 'Edit definition',
    onsubmit: (event) => {
      event.preventDefault();
      saved.textContent = '';
      problems.hidden = true;
      let definition;
      try {
        definition = JSON.parse(text.value);
      } catch (error) {
        clearRefusal(form);
        return show({ message: `The definition is not JSON: ${error.message}`, field: 'definition' });
      }
      attempt(form, submit, async () => {
        try {
          const answer = await api.call('workflow-save', { definition });
          saved.textContent = answer.changed ? 'Saved.' : 'Saved; nothing had changed.';
          await onSaved(answer);
        } catch (error) {
          show(error);
        }
      });
    },
  });

  // A refusal naming definition or definition.id lands beside the editor.
  function show(error) {
    const wrap = form.querySelector('.w-field');
    const line = wrap.querySelector('.w-field-error');
    line.textContent = error.message;
    line.hidden = false;
    text.setAttribute('aria-invalid', 'true');
    const list = error.details?.problems || [];
    replace(problems, list.slice(1).map((p) => h('li', {}, p)));
    problems.hidden = list.length < 2;
    text.focus();
  }

  replace(
    form,
    workflow.preset ? h('p', { class: 'muted' }, 'A preset is never written; Customize it first to save your own copy.') : null,
    alertLine(),
    field('Definition (JSON)', text, { name: 'definition', hint: 'Nodes, edges ("from.artifact -> to.artifact") and guards; the engine checks the roles against your Bots when you save.' }),
    problems,
    h('div', { class: 'w-move-row' }, submit, saved),
  );
  return form;
}
