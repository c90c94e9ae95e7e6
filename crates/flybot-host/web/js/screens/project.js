// A Project (#/project/<id>, #1712 Stage 2.5): its record, its board (`project-board`), its memory (`project-memory`: decisions and open questions, written by its owner with `project-memory-write`) and the Project Assistant's latest digest (`project-digest` writes today's, once a day), with its daily task and that task's escalation (`project-read`'s `daily`, the owner's only).

import { h, replace, when } from '../dom.js';
import { uid } from '../work/ui.js';

const COLUMNS = [
  ['not-started', 'Not started'],
  ['in-progress', 'In progress'],
  ['done', 'Done'],
];

function section(title, ...children) {
  const id = uid('p');
  return h('section', { class: 'w-project-part', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

function notes(list, empty) {
  if (!list?.length) return h('p', { class: 'muted' }, empty);
  return h('ul', {}, list.map((n) => h('li', {}, n.text, ' ', h('span', { class: 'muted' }, when(n.at)))));
}

/** The daily run that escalated instead of posting (the host keeps the latest run), with its reason. */
function escalations(run) {
  if (!run) return h('p', { class: 'muted' }, 'None yet: the daily task has not run.');
  if (run.result !== 'failed') return h('p', { class: 'muted' }, 'None: the last daily run did not escalate.');
  return h('ul', { class: 'w-escalations' }, h('li', {}, h('strong', {}, `Escalated ${when(run.at)}: `), run.reason || 'no reason was recorded.'));
}

export async function show(main, ctx, { projectId }) {
  const { api } = ctx;
  const said = h('p', { class: 'form-error', role: 'alert' });
  let project;
  let canManage = false;
  let daily = null;
  try {
    ({ project, canManage, daily = null } = await api.call('project-read', { project: projectId }));
  } catch (refusal) {
    replace(main, h('section', { class: 'w-screen' }, h('h1', {}, 'Project not found'), h('p', {}, refusal.message)));
    return null;
  }
  const boardPart = h('div', {});
  const memoryPart = h('div', {});
  const digestPart = h('div', {});

  async function load() {
    const [{ tasks }, { memory }] = await Promise.all([api.call('project-board', { project: projectId }), api.call('project-memory', { project: projectId })]);
    replace(
      boardPart,
      h('div', { class: 'w-project-board' }, COLUMNS.map(([key, label]) => {
        const rows = tasks.filter((t) => t.column === key);
        return h('div', {}, h('h3', {}, `${label} (${rows.length})`), rows.length ? h('ul', {}, rows.map((t) => h('li', {}, t.title, ' — ', t.ownerBotName || t.assignee))) : h('p', { class: 'muted' }, 'No cards.'));
      })),
    );
    replace(memoryPart, h('h3', {}, 'Decisions'), notes(memory.decisions, 'No decisions written yet.'), h('h3', {}, 'Open questions'), notes(memory.questions, 'No open questions.'));
    const d = memory.digest;
    replace(digestPart, d ? [h('p', { class: 'muted' }, `Digest of ${d.day}`), h('pre', { class: 'w-digest' }, d.text)] : h('p', { class: 'muted' }, 'No digest yet.'));
  }

  const kind = h('select', { id: uid('k') }, h('option', { value: 'decision' }, 'Decision'), h('option', { value: 'question' }, 'Question'));
  const text = h('input', { id: uid('t'), type: 'text', maxlength: '2000' });
  const write = h(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        said.textContent = '';
        try {
          await api.call('project-memory-write', { project: projectId, kind: kind.value, text: text.value });
          text.value = '';
          await load();
        } catch (refusal) {
          said.textContent = refusal.message;
        }
      },
    },
    h('label', { for: kind.id }, 'Kind'),
    kind,
    h('label', { for: text.id }, 'Entry'),
    text,
    h('button', { type: 'submit' }, 'Add to memory'),
  );
  const runDigest = h('button', {
    type: 'button',
    onclick: async () => {
      said.textContent = '';
      try {
        const answer = await api.call('project-digest', { project: projectId });
        if (answer.skipped) said.textContent = "Today's digest is already written.";
        await load();
      } catch (refusal) {
        said.textContent = refusal.message;
      }
    },
  }, "Write today's digest");

  // The assistant's daily task (its owner only): not in the schedule list, so its time and escalations show here.
  const dailyPart = daily ? [h('p', { class: 'muted' }, `The Project Assistant writes it daily at ${daily.when?.time} (${daily.when?.zone || 'host time'})${daily.nextRunAt ? `; next ${when(daily.nextRunAt)}` : ''}.`), h('h3', {}, 'Escalations'), escalations(daily.lastRun)] : null;

  const facts = [project.repository, project.defaultBranch && `branch ${project.defaultBranch}`, project.status].filter(Boolean).join(' · ');
  replace(
    main,
    h(
      'section',
      { class: 'w-screen w-project', 'aria-labelledby': 'project-title' },
      h('h1', { id: 'project-title' }, project.name),
      facts ? h('p', { class: 'muted' }, facts) : null,
      said,
      section('Board', boardPart),
      section('Memory', memoryPart, canManage ? write : null),
      section('Latest digest', digestPart, canManage ? runDigest : null, dailyPart),
    ),
  );
  await load().catch((refusal) => (said.textContent = refusal.message));
  return null;
}
