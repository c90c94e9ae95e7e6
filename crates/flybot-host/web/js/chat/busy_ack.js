// Busy-send acknowledgments (#1584, #1646): a line that reached a running turn gets one Bot bubble, blinking dots until its sentence comes; the turn's end clears it.
// `mine(event)` picks this screen's acks; `who(event)` names the member in a room.

import { h } from '../dom.js';

export function busyAcks(live, { mine, who = () => null }, box, keepBottom) {
  const bubbles = new Map(); // lineId → [sessionId, element]
  const draw = (event) => {
    let bubble = bubbles.get(event.lineId)?.[1];
    if (!bubble) {
      bubble = h('div', { class: 'msg assistant ack', role: 'status' });
      bubbles.set(event.lineId, [event.sessionId, bubble]);
      keepBottom(() => box.append(bubble));
    }
    const name = who(event);
    const text = event.text || h('span', { class: 'dots', 'aria-label': 'Working on it' }, '•••');
    bubble.replaceChildren(...(name ? [h('span', { class: 'who' }, name)] : []), text);
  };
  const clear = (sessionId) => {
    for (const [lineId, [session, bubble]] of bubbles) {
      if (session !== sessionId) continue;
      bubble.remove();
      bubbles.delete(lineId);
    }
  };
  return [
    live.on('busy.ack', (event) => mine(event) && draw(event)),
    live.on('busy.ack.cleared', (event) => clear(event.sessionId)),
  ];
}
