// Busy-send acknowledgments (#1584): a line that reached a running turn gets one Bot bubble, blinking dots until its sentence comes; the turn's end clears it.

import { h } from '../dom.js';

export function busyAcks(live, sessionId, box, keepBottom) {
  const bubbles = new Map();
  const draw = (event) => {
    let bubble = bubbles.get(event.lineId);
    if (!bubble) {
      bubble = h('div', { class: 'msg assistant ack', role: 'status' });
      bubbles.set(event.lineId, bubble);
      keepBottom(() => box.append(bubble));
    }
    bubble.replaceChildren(event.text ? event.text : h('span', { class: 'dots', 'aria-label': 'Working on it' }, '•••'));
  };
  const clear = () => {
    for (const bubble of bubbles.values()) bubble.remove();
    bubbles.clear();
  };
  return [
    live.on('busy.ack', (event) => event.sessionId === sessionId && draw(event)),
    live.on('busy.ack.cleared', (event) => event.sessionId === sessionId && clear()),
  ];
}
