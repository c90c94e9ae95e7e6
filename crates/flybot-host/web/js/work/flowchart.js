// A workflow drawn as an SVG flowchart (#1272) from the engine's layout (`workflows {id}` → workflow.layout).

import { svg, plural } from '../dom.js';

const W = 180; // core workflow::layout::BOX_WIDTH
const H = 72; // BOX_HEIGHT
const GAP = 48; // GAP
const PAD = 56; // room for the arcs above and below

/** A layout from the definition alone: one rank per node, in order. */
export function fallbackLayout(def) {
  const boxes = (def.nodes || []).map((n, i) => ({ id: n.id, role: n.role, rank: i, row: 0, x: i * (W + GAP), y: 0 }));
  const edges = (def.edges || []).map((line, row) => {
    const [from, to] = String(line).split('->').map((s) => s.trim().split('.')[0]);
    return { row, from, to, artifact: String(line), isLoop: false };
  });
  return { boxes, edges, width: Math.max(0, boxes.length * (W + GAP) - GAP), height: H };
}

function clip(text, max) {
  const t = String(text ?? '');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function arrow(edge, at, index) {
  const a = at.get(edge.from);
  const b = at.get(edge.to);
  if (!a || !b) return null;
  let d;
  if (edge.isLoop || b.x <= a.x) {
    // Back below the boxes.
    const x1 = a.x + W / 2;
    const x2 = b.x + W / 2;
    const y1 = a.y + H;
    const y2 = b.y + H;
    const dip = Math.max(y1, y2) + 28 + (index % 3) * 8;
    d = `M${x1},${y1} C${x1},${dip} ${x2},${dip} ${x2 + 6},${y2 + 8}`;
  } else if (b.rank - a.rank > 1 && a.y === b.y) {
    // Over the boxes it skips.
    const x1 = a.x + W - 24;
    const x2 = b.x + 24;
    const lift = a.y - 26 - (index % 3) * 8;
    d = `M${x1},${a.y} C${x1},${lift} ${x2},${lift} ${x2},${b.y - 2}`;
  } else {
    const x1 = a.x + W;
    const y1 = a.y + H / 2;
    const x2 = b.x - 2;
    const y2 = b.y + H / 2;
    const mid = (x1 + x2) / 2;
    d = `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
  }
  return svg(
    'path',
    { d, class: `w-edge${edge.isLoop ? ' w-edge-loop' : ''}`, 'marker-end': 'url(#w-arrow)' },
    svg('title', {}, `${edge.from} → ${edge.to}: ${edge.artifact}${edge.isLoop ? ' (loop)' : ''}`),
  );
}

/** Draws `layout` for `def`. */
export function flowchart(def, layout, { selected, onSelect, label }) {
  const nodes = new Map((def.nodes || []).map((n) => [n.id, n]));
  const at = new Map(layout.boxes.map((b) => [b.id, { ...b, x: b.x + PAD / 2, y: b.y + PAD }]));
  const width = Math.max(layout.width, W) + PAD;
  const height = Math.max(layout.height, H) + PAD * 2;
  const order = layout.boxes.map((b) => b.id);

  const focusNode = (root, id) => root.querySelector(`[data-node="${CSS.escape(id)}"]`)?.focus();

  const boxes = layout.boxes.map((b) => {
    const p = at.get(b.id);
    const node = nodes.get(b.id) || {};
    const guards = node.guards?.length || 0;
    const chosen = b.id === selected;
    const guardWord = guards ? plural(guards, 'guard') : '';
    // The name starts with the box's visible words (id, role, guards).
    const name = `${b.id}, ${b.role}${guards ? `, ${guardWord}` : ''}${node.column ? `, column ${node.column}` : ''}`;
    const g = svg(
      'g',
      {
        class: `w-node${chosen ? ' w-node-selected' : ''}${b.role === 'system' ? ' w-node-system' : ''}`,
        role: 'button',
        tabindex: '0',
        'aria-pressed': String(chosen),
        'aria-label': name,
        'data-node': b.id,
        transform: `translate(${p.x},${p.y})`,
      },
      svg('rect', { width: W, height: H, rx: 8, ry: 8 }),
      svg('text', { x: 12, y: 24, class: 'w-node-id' }, `${clip(b.id, 20)} `),
      svg('text', { x: 12, y: 44, class: 'w-node-role' }, `${clip(b.role, 24)} `),
      guards ? svg('text', { x: 12, y: 62, class: 'w-node-guards' }, guardWord) : null,
    );
    g.addEventListener('click', () => onSelect(b.id));
    g.addEventListener('keydown', (event) => {
      const i = order.indexOf(b.id);
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        onSelect(b.id);
      } else if (event.key === 'ArrowRight' || event.key === 'ArrowDown') {
        event.preventDefault();
        focusNode(g.ownerSVGElement, order[Math.min(order.length - 1, i + 1)]);
      } else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') {
        event.preventDefault();
        focusNode(g.ownerSVGElement, order[Math.max(0, i - 1)]);
      }
    });
    return g;
  });

  const edges = layout.edges.map((e, i) => arrow(e, at, i)).filter(Boolean);
  return svg(
    'svg',
    { class: 'w-flowchart', viewBox: `0 0 ${width} ${height}`, width, height, role: 'group', 'aria-label': label },
    svg(
      'defs',
      {},
      svg('marker', { id: 'w-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'w-arrowhead' })),
    ),
    svg('g', { class: 'w-edges', 'aria-hidden': 'true' }, edges),
    svg('g', { class: 'w-nodes' }, boxes),
  );
}
