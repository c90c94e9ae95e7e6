// Workflows (#/workflows, #/workflow/<id>; #1272, #1299).

import { h, replace, plural } from '../dom.js';
import { flowchart, fallbackLayout } from '../work/flowchart.js';
import { customizeForm, definitionEditor } from '../work/workflow_edit.js';
import { alertLine, showRefusal, attempt } from '../work/ui.js';

export async function show(main, ctx, { workflowId } = {}) {
  return workflowId ? showOne(main, ctx, workflowId) : showList(main, ctx);
}

/** A workflow's id, node count, and its preset and default badges. */
function badgesOf(id, nodes, w) {
  return [
    h('span', { class: 'muted' }, `${id} · ${plural(nodes, 'node')}`),
    w.preset ? h('span', { class: 'w-badge' }, 'preset') : null,
    w.default ? h('span', { class: 'w-badge w-badge-live' }, 'default') : null,
  ];
}

async function showList(main, { api }) {
  const errors = alertLine();
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  replace(
    main,
    h('section', { class: 'w-screen', 'aria-labelledby': 'wf-title' }, h('header', { class: 'w-head' }, h('h1', { id: 'wf-title', class: 'w-title' }, 'Workflows')), errors, body),
  );
  try {
    const { workflows } = await api.call('workflows', {});
    replace(
      body,
      workflows.length
        ? h(
            'ul',
            { class: 'w-wf-list' },
            workflows.map((w) =>
              h(
                'li',
                { class: 'w-wf-row' },
                h('a', { href: `#/workflow/${encodeURIComponent(w.id)}`, class: 'w-wf-link' }, w.name),
                badgesOf(` ${w.id}`, w.nodes, w),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No workflows yet.'),
    );
  } catch (error) {
    replace(body);
    showRefusal(errors.parentElement, error);
  }
  return null;
}

function guardRows(node, preview) {
  const guards = node?.guards || [];
  if (!guards.length) return h('p', { class: 'muted' }, 'This node has no guards: it may start as soon as its inputs exist.');
  const rows = preview?.node === node.id ? preview.rows : [];
  return h(
    'ol',
    { class: 'w-guards' },
    guards.map((g, i) => {
      const row = rows[i];
      const state = row?.state || 'unknown';
      const word = { holds: 'holds', refuse: 'refuses', unreadable: 'cannot be read' }[state] || 'not previewed';
      const expect = g.field ? `${g.fact}.${g.field} ${g.is}` : `${g.fact} ${g.is}`;
      return h(
        'li',
        { class: `w-guard w-guard-${state}` },
        h('div', {}, h('code', {}, expect), g.value !== undefined ? h('code', {}, ` ${JSON.stringify(g.value)}`) : null, h('span', { class: `w-guard-state w-gs-${state}` }, word)),
        row?.sentence ? h('p', { class: 'w-guard-why' }, row.sentence) : null,
        row?.why ? h('p', { class: 'w-guard-why muted' }, `Why: ${row.why}`) : null,
        g.refusal ? h('p', { class: 'w-guard-why muted' }, `Refusal: ${g.refusal}`) : null,
      );
    }),
  );
}

function nodePanel(def, node, preview) {
  if (!node) return h('p', { class: 'muted' }, 'Select a node to see its guards.');
  const list = (label, items) => (items?.length ? [h('dt', {}, label), h('dd', {}, items.join(', '))] : []);
  return h(
    'div',
    {},
    h('h2', { class: 'w-side-title', id: 'wf-node-title' }, `Node ${node.id}`),
    h(
      'dl',
      { class: 'w-facts' },
      h('dt', {}, 'Role'),
      h('dd', {}, node.role),
      node.column ? [h('dt', {}, 'Column'), h('dd', {}, node.column)] : null,
      list('Inputs', node.inputs),
      list('Outputs', node.outputs),
      list('Tools', node.tools),
      node.holder ? [h('dt', {}, 'Holder'), h('dd', {}, `${node.holder.fact}.${node.holder.field}`)] : null,
      node.refusal ? [h('dt', {}, 'Refusal'), h('dd', {}, node.refusal)] : null,
    ),
    h('h3', {}, 'Guards'),
    guardRows(node, preview),
  );
}

async function showOne(main, ctx, id) {
  const { api, navigate } = ctx;
  let workflow = null;
  let selected = null;
  let preview = null;
  const errors = alertLine();
  const title = h('h1', { id: 'wf-title', class: 'w-title' }, id);
  const badges = h('p', { class: 'w-wf-badges' });
  const chart = h('div', { class: 'w-chart', 'aria-describedby': 'wf-chart-help' });
  const panel = h('aside', { class: 'w-node-panel', 'aria-live': 'polite', 'aria-label': 'Selected node' });
  const tools = h('div', { class: 'w-wf-tools' });
  const makeDefault = h('button', { type: 'button', onclick: (e) => attempt(errors.parentElement, e.currentTarget, async () => { await api.call('workflow-set-default', { id }); await open(selected, false); }) }, 'Make default');

  replace(
    main,
    h(
      'section',
      { class: 'w-screen', 'aria-labelledby': 'wf-title' },
      h('p', { class: 'w-back' }, h('a', { href: '#/workflows' }, '← All workflows')),
      h('header', { class: 'w-head' }, h('div', { class: 'w-head-text' }, title, badges), h('div', { class: 'w-head-actions' }, makeDefault)),
      h('div', {}, errors),
      h('p', { id: 'wf-chart-help', class: 'muted w-chart-help' }, 'Tab to a node and press Enter to see its guards; arrow keys move between nodes.'),
      h('div', { class: 'w-wf-body' }, chart, panel),
      tools,
    ),
  );

  async function open(node, full = true) {
    try {
      const answer = await api.call('workflows', node ? { id, node } : { id });
      workflow = answer.workflow;
      preview = workflow.preview;
      selected = preview?.node || workflow.definition.nodes[0]?.id || null;
      draw(full);
    } catch (error) {
      showRefusal(errors.parentElement, error);
    }
  }

  function drawChart() {
    const def = workflow.definition;
    const layout = workflow.layout?.boxes ? workflow.layout : fallbackLayout(def);
    replace(chart, flowchart(def, layout, { selected, label: `Flowchart of ${def.name}`, onSelect: select }));
    // Bring the selected node into view without moving the focus.
    const box = layout.boxes.find((b) => b.id === selected);
    if (box && (box.x < chart.scrollLeft || box.x + 240 > chart.scrollLeft + chart.clientWidth)) chart.scrollLeft = Math.max(0, box.x - 40);
    const node = def.nodes.find((n) => n.id === selected);
    replace(panel, nodePanel(def, node, preview));
  }

  async function select(node) {
    selected = node;
    drawChart();
    chart.querySelector(`[data-node="${CSS.escape(node)}"]`)?.focus();
    try {
      const answer = await api.call('workflows', { id, node });
      if (selected !== node) return;
      preview = answer.workflow.preview;
      const def = workflow.definition;
      replace(panel, nodePanel(def, def.nodes.find((n) => n.id === node), preview));
    } catch (error) {
      showRefusal(errors.parentElement, error);
    }
  }

  function draw(full) {
    const def = workflow.definition;
    title.textContent = def.name;
    replace(
      badges,
      badgesOf(def.id, def.nodes.length, workflow),
    );
    makeDefault.hidden = Boolean(workflow.default);
    drawChart();
    if (!full) return;
    const focusWas = document.activeElement;
    replace(
      tools,
      def.description ? h('p', { class: 'w-wf-desc' }, def.description) : null,
      h(
        'details',
        { class: 'w-wf-section', open: workflow.preset ? true : null },
        h('summary', {}, 'Customize'),
        customizeForm({ api, from: def.id, fromName: def.name, onCustomized: (newId) => navigate(`#/workflow/${encodeURIComponent(newId)}`) }),
      ),
      h(
        'details',
        { class: 'w-wf-section', open: workflow.preset ? null : true },
        h('summary', {}, 'Edit definition'),
        definitionEditor({ api, workflow, onSaved: () => open(selected, false) }),
      ),
    );
    if (focusWas && !document.contains(focusWas)) chart.querySelector('.w-node-selected')?.focus();
  }

  await open(null);
  return null;
}
