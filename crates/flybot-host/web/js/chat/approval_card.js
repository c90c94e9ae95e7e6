// An approval card (#540, #754): a tool call, a held send, or a send to a friend's home (#52), waiting for the owner's word.

import { h } from '../dom.js';
import * as approvals from './approvals.js';

/** The card for `approval`; `names.bot(id)` gives a Bot's name. */
export function approvalCard(approval, names, { link = false } = {}) {
  const friend = approvals.isFriendHold(approval);
  const held = approvals.isHeldSend(approval) || friend;
  const botName = names.bot(approvals.botOf(approval)) || 'A Bot';
  const error = h('p', { class: 'form-error', role: 'alert' });
  // #456: a line in a face-to-face room goes to every home in it.
  const toFriend = approval.roomId
    ? `wants to say in the face-to-face room ${approval.to}`
    : approval.reply
      ? `wants to reply to your friend ${approval.to}`
      : `wants to send a message to ${approval.to}, a friend's Bot`;
  const title = friend
    ? `${botName} ${toFriend}`
    : held
      ? `${botName} wants to send a message${approval.toBot ? ` to ${names.bot(approval.toBot) || approval.toBot}` : ''}`
      : `${botName} asks to use ${approval.tool}`;
  const buttons = [];
  const button = (label, verdict, primary) => {
    const b = h('button', { type: 'button', class: primary ? 'primary' : null }, label);
    b.addEventListener('click', async () => {
      for (const other of buttons) other.disabled = true;
      error.textContent = '';
      // A redraw while the answer is out keeps a settled card, so its outcome can be shown.
      card.dataset.settled = 'true';
      try {
        const result = await approvals.answer(approval.id, verdict);
        // #404: a share that ended while the send was held says so; nothing went.
        // The card stays until the person dismisses it.
        if (result?.status === 'failed') {
          const dismiss = h('button', { type: 'button' }, 'Dismiss');
          dismiss.addEventListener('click', () => {
            // The screen holding the card counts what it shows again.
            card.dispatchEvent(new CustomEvent('approval-dismissed', { bubbles: true }));
            card.remove();
          });
          card.replaceChildren(h('p', { class: 'form-error', role: 'alert' }, `${title}: ${result.error}`), h('div', { class: 'actions' }, dismiss));
          return;
        }
        card.remove();
      } catch (refusal) {
        delete card.dataset.settled;
        error.textContent = refusal.message;
        for (const other of buttons) other.disabled = false;
      }
    });
    buttons.push(b);
    return b;
  };
  const body = held ? approval.text : approval.label;
  const card = h(
    'section',
    { class: 'approval', role: 'group', 'aria-label': title, dataset: { approval: approval.id } },
    h('p', {}, h('strong', {}, title)),
    body ? h('span', { class: 'label' }, body) : null,
    h(
      'div',
      { class: 'actions' },
      button(friend ? 'Send' : 'Allow once', 'allowed-once', true),
      button(friend ? 'Don\'t send' : 'Reject', 'rejected'),
      held ? null : button('Always for this Bot', 'always-bot'),
      link && approval.roomId ? h('a', { class: 'button', href: `#/room/${approval.roomId}` }, 'Open the room') : null,
      link && !approval.roomId ? h('a', { class: 'button', href: `#/bot/${approvals.botOf(approval)}` }, `Open ${botName}`) : null,
    ),
    error,
  );
  return card;
}
