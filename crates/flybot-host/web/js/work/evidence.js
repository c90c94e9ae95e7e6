// The evidence level an external runtime's verified result recorded on its card (#198): 1 mock, 2 real runtime, 3 real model, 4 a person's acceptance after independent verification.

import { h } from '../dom.js';

const LEVELS = {
  'offline-mock': [1, 'mock runtime'],
  'real-process-interface': [2, 'real runtime'],
  'real-model-collaboration': [3, 'real model'],
  'human-acceptance': [4, 'accepted by a person after independent verification'],
};

/** The card's evidence badge, or nothing when no runtime returned it. */
export function evidenceBadge(task) {
  const level = LEVELS[task.evidenceLevel];
  if (!level) return null;
  const [n, words] = level;
  return h('span', { class: `w-evidence w-evidence-${n}`, title: `Evidence level ${n}: ${words}` }, `Evidence ${n}: ${words}`);
}
