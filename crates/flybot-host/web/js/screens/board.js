// The task board (#/board, #1058): three columns by the row's `column`, the newest finished cards in Done and the whole archive on request (#1252), filters by Bot, room and project, and a card dragged (or its button pressed) to the column its row's move lands it in (issue 31).

import { h, replace, coalesce, plural } from '../dom.js';
import { cardTile, cardDetail, isDone, moveInto, MOVE_TO_COLUMN } from '../work/card.js';
import { taskForm } from '../work/task_form.js';
import { openDialog, redrawDialog, alertLine, showRefusal, clearRefusal, select, field } from '../work/ui.js';

/** How many finished cards the Done column shows before the whole archive is asked for. */
const RECENT_DONE = 20;

const ENDPOINT_OF = { 'accept-result': 'task-accept-result' };

const COLUMNS = [
  ['not-started', 'Not started'],
  ['in-progress', 'In progress'],
  ['done', 'Done'],
];

export async function show(main, ctx) {
  const { api, live, team } = ctx;
  const filters = { botId: '', roomId: '', project: '', archive: false };
  let rows = [];
  let detail = null; // {handle, id}
  let disposed = false;

  const errors = alertLine();
  const count = h('p', { class: 'muted w-board-count', role: 'status' });
  const board = h('div', { class: 'w-board' });
  const archive = h('button', { type: 'button', 'aria-pressed': 'false', onclick: () => toggleArchive() }, 'Show all finished');
  const newTask = h('button', { type: 'button', class: 'primary', onclick: () => openNew() }, 'New task');
  const filterBar = h('form', { class: 'w-filters', 'aria-label': 'Filters', onsubmit: (e) => e.preventDefault() });

  let shape = '';
  function drawFilters() {
    const s = team.state || { bots: [], rooms: [], projects: [] };
    const now = JSON.stringify([s.bots.map((b) => [b.id, b.name]), s.rooms.map((r) => [r.id, r.name]), (s.projects || []).map((p) => [p.id, p.name])]);
    if (now === shape) return;
    shape = now;
    const bot = select([['', 'All Bots'], ...s.bots.map((b) => [b.id, b.name])], filters.botId, { name: 'botId' });
    const room = select([['', 'All rooms'], ...s.rooms.map((r) => [r.id, r.name])], filters.roomId, { name: 'roomId' });
    const project = select([['', 'All projects'], ...(s.projects || []).map((p) => [p.id, p.name])], filters.project, { name: 'project' });
    bot.addEventListener('change', () => { filters.botId = bot.value; load(); });
    room.addEventListener('change', () => { filters.roomId = room.value; draw(); });
    // The chosen Project's own page (#1712): its memory and digest.
    const projectLink = h('a', { class: 'w-project-link', hidden: !filters.project }, 'Open the project');
    const linkTo = () => {
      projectLink.hidden = !filters.project;
      projectLink.href = `#/project/${encodeURIComponent(filters.project)}`;
    };
    linkTo();
    project.addEventListener('change', () => { filters.project = project.value; linkTo(); load(); });
    replace(filterBar, field('Bot', bot, { name: 'botId' }), field('Room', room, { name: 'roomId' }), field('Project', project, { name: 'project' }), projectLink);
  }

  function toggleArchive() {
    filters.archive = !filters.archive;
    archive.setAttribute('aria-pressed', String(filters.archive));
    archive.textContent = filters.archive ? 'Show recent finished' : 'Show all finished';
    load();
  }

  async function fetchRows() {
    if (filters.project) {
      const answer = await api.call('project-board', { project: filters.project });
      return answer.tasks.filter((t) => !filters.botId || t.botId === filters.botId);
    }
    const body = {};
    if (filters.botId) body.botId = filters.botId;
    if (filters.archive) return (await api.call('tasks', { ...body, archive: true })).tasks;
    // Active work, and the newest finished cards so an accepted card stays in sight.
    const [active, recent] = await Promise.all([api.call('tasks', body), api.call('tasks', { ...body, archive: true, limit: RECENT_DONE })]);
    return [...active.tasks, ...recent.tasks];
  }

  const load = coalesce(async () => {
    try {
      rows = await fetchRows();
      if (disposed) return;
      clearRefusal(errors.parentElement);
      draw();
    } catch (error) {
      if (!disposed) showRefusal(errors.parentElement, error);
    }
  }, () => disposed);

  let dragged = null; // the row being dragged

  async function makeMove(task, column) {
    const move = moveInto(task, column);
    if (!move) return;
    clearRefusal(errors.parentElement);
    try {
      await api.call(ENDPOINT_OF[move], { id: task.id });
      await load();
      board.querySelector(`.w-column-${column} [data-task-id="${CSS.escape(task.id)}"] .w-card-open`)?.focus();
    } catch (error) {
      showRefusal(errors.parentElement, error);
    }
  }

  /** Archives a finished card (issue 31); focus goes to the Done column's heading, where the card was. */
  async function archiveCard(task) {
    clearRefusal(errors.parentElement);
    try {
      await api.call('task-archive', { id: task.id });
      await load();
      board.querySelector('#col-done')?.focus();
    } catch (error) {
      showRefusal(errors.parentElement, error);
    }
  }

  function dropTarget(section, key) {
    section.addEventListener('dragover', (event) => {
      if (!dragged || !moveInto(dragged, key)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      section.classList.add('w-drop');
    });
    section.addEventListener('dragleave', () => section.classList.remove('w-drop'));
    section.addEventListener('drop', (event) => {
      event.preventDefault();
      section.classList.remove('w-drop');
      const task = dragged;
      dragged = null;
      if (task) makeMove(task, key);
    });
  }

  function draw() {
    const state = team.state;
    const shown = rows.filter((t) => !filters.roomId || t.roomId === filters.roomId);
    const columns = COLUMNS.map(([key, label]) => {
      const cards = shown.filter((t) => t.column === key);
      const headId = `col-${key}`;
      let emptyText = 'No cards.';
      let more = null;
      if (key === 'done' && !filters.archive) {
        const finished = state?.finishedTasks || 0;
        emptyText = 'Finished cards show here.';
        if (finished > cards.length) more = h('p', { class: 'muted w-column-more' }, `The newest ${plural(cards.length, 'finished card')} of ${finished}; Show all finished lists the rest.`);
      }
      const section = h(
        'section',
        { class: `w-column w-column-${key}`, 'aria-labelledby': headId, dataset: { column: key } },
        h('h2', { id: headId, class: 'w-column-title', tabindex: '-1' }, label, h('span', { class: 'w-column-count' }, String(cards.length))),
        cards.length
          ? h('ul', { class: 'w-cards' }, cards.map((t) => cardTile(t, state, openCard, makeMove, archiveCard)))
          : h('p', { class: 'muted w-column-empty' }, emptyText),
        more,
      );
      dropTarget(section, key);
      return section;
    });
    // A redraw (another write's tasks.written) keeps focus on the same
    // control of the focused card (its title, Accept or Archive; its title
    // when that control is gone), or on the focused column heading (where
    // an archived card was).
    const active = board.contains(document.activeElement) ? document.activeElement : null;
    const focused = active?.closest('[data-task-id]')?.dataset.taskId;
    const control = active?.dataset.control;
    replace(board, columns);
    if (focused) {
      const tile = board.querySelector(`[data-task-id="${CSS.escape(focused)}"]`);
      (tile?.querySelector(`[data-control="${CSS.escape(control || 'open')}"]`) || tile?.querySelector('.w-card-open'))?.focus();
    } else if (active?.id) board.querySelector(`#${CSS.escape(active.id)}`)?.focus();
    for (const tile of board.querySelectorAll('.w-card[draggable="true"]')) {
      tile.addEventListener('dragstart', (event) => {
        dragged = rows.find((t) => t.id === tile.dataset.taskId) || null;
        event.dataTransfer.setData('text/plain', tile.dataset.taskId);
        event.dataTransfer.effectAllowed = 'move';
        for (const [move, column] of Object.entries(MOVE_TO_COLUMN)) {
          if (dragged?.moves?.includes(move)) board.querySelector(`.w-column-${column}`)?.classList.add('w-drop-ok');
        }
      });
      tile.addEventListener('dragend', () => {
        dragged = null;
        for (const el of board.querySelectorAll('.w-drop, .w-drop-ok')) el.classList.remove('w-drop', 'w-drop-ok');
      });
    }
    count.textContent = `${plural(shown.filter((t) => !isDone(t)).length, 'card')} in work${filters.archive ? ', every finished one shown' : ''}.`;
    if (detail) refreshDetail();
  }

  async function openCard(task) {
    const handle = openDialog(task.title || '(untitled)', h('p', { class: 'muted' }, 'Loading…'), {
      wide: true,
      onClose: () => {
        detail = null;
        board.querySelector(`[data-task-id="${CSS.escape(task.id)}"] .w-card-open`)?.focus();
      },
    });
    detail = { handle, id: task.id };
    await refreshDetail();
  }

  async function refreshDetail() {
    if (!detail) return;
    const { handle, id } = detail;
    let task = rows.find((t) => t.id === id);
    if (!task) {
      // A move can take the card out of the current read (accepted, cancelled).
      try {
        task = (await api.call('tasks', { archive: true })).tasks.find((t) => t.id === id);
      } catch {}
    }
    if (!task || detail?.handle !== handle) return;
    const body = await cardDetail(task, { api, state: team.state, onMoved: () => load() });
    if (detail?.handle !== handle) return;
    // While the moves stay the same only the facts are redrawn: typed text and focus are kept.
    const key = JSON.stringify([task.status, task.waitingFor, task.inputRequest?.id, task.moves]);
    const old = handle.body.querySelector('.w-detail');
    const kept = detail.key === key && old?.lastElementChild;
    if (kept && body.lastElementChild) {
      while (old.firstChild !== kept) old.firstChild.remove();
      body.lastElementChild.remove();
      kept.before(...body.children);
    } else {
      const hadFocus = handle.body.contains(document.activeElement);
      redrawDialog(handle, body);
      if (hadFocus) handle.body.querySelector('.w-moves textarea, .w-moves button')?.focus();
    }
    detail.key = key;
  }

  function openNew() {
    const handle = openDialog('New task', taskForm({
      api,
      state: team.state,
      botId: filters.botId,
      roomId: filters.roomId,
      onCreated: async () => {
        handle.close();
        await load();
      },
    }), { onClose: () => newTask.focus() });
    handle.dialog.querySelector('select, input')?.focus();
  }

  const offs = [
    live.on('tasks.written', () => load()),
    live.on('resync', () => load()),
    live.on('reconnected', () => load()),
    team.onChange(() => drawFilters()),
  ];

  replace(
    main,
    h(
      'section',
      { class: 'w-screen w-board-screen', 'aria-labelledby': 'board-title' },
      h('header', { class: 'w-head' }, h('div', { class: 'w-head-text' }, h('h1', { id: 'board-title', class: 'w-title' }, 'Board'), count), h('div', { class: 'w-head-actions' }, archive, newTask)),
      filterBar,
      h('div', {}, errors),
      board,
    ),
  );
  drawFilters();
  await load();

  return () => {
    disposed = true;
    for (const off of offs) off();
    detail?.handle.close();
  };
}
