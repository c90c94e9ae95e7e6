// A room's question dock (#550): the question a Bot asked about work a member of this room handed it (`state.questions[roomId]`, shown only to the asking Bot's owner and the room's owner), answered here with `answer-question` or dismissed with `dismiss-question`. The answer goes to the asking Bot; either way the room then shows a quiet notice.

import { h, replace } from '../dom.js';
import { uid } from './ui.js';

/** The dock for `roomId`: `{element, off}`; it redraws on every change of the team. */
export function questionDock({ api, team }, roomId) {
  const element = h('div', { class: 'w-question-dock', hidden: true });
  let drawnFor = '';

  function draw() {
    const card = team.state?.questions?.[roomId] || null;
    const key = card ? `${card.botId}:${card.askedAt}` : '';
    if (key === drawnFor) return;
    drawnFor = key;
    element.hidden = !card;
    if (!card) {
      replace(element);
      return;
    }
    const id = uid('q');
    const input = h('input', { id, type: 'text', autocomplete: 'off', maxlength: '2000' });
    const said = h('p', { class: 'w-field-error', role: 'alert' });
    const send = h('button', { type: 'submit' }, 'Answer');
    const dismiss = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: async () => {
          dismiss.disabled = true;
          said.textContent = '';
          try {
            await api.call('dismiss-question', { roomId });
            await team.refresh();
          } catch (refusal) {
            said.textContent = refusal.message;
          } finally {
            dismiss.disabled = false;
          }
        },
      },
      'Dismiss',
    );
    const form = h(
      'form',
      {
        onsubmit: async (event) => {
          event.preventDefault();
          send.disabled = true;
          said.textContent = '';
          try {
            await api.call('answer-question', { roomId, answer: input.value });
            input.value = '';
            await team.refresh();
          } catch (refusal) {
            said.textContent = refusal.message;
          } finally {
            send.disabled = false;
          }
        },
      },
      h('label', { for: id }, 'Your answer'),
      h('div', { class: 'w-question-row' }, input, send, dismiss),
      said,
    );
    replace(
      element,
      h('section', { 'aria-label': `Question from ${card.header}` }, h('p', { class: 'w-question-head' }, `${card.header} asks about the work this room handed over:`), h('p', { class: 'w-question-text' }, card.question), form),
    );
  }

  const off = team.onChange(draw);
  draw();
  return { element, off };
}
