// Scheduled tasks (#354 #473 #1166): list, make, pause, resume, retry, delete.

import { h, replace, when } from '../dom.js';

const KINDS = { every: 'Every N s', daily: 'Daily HH:MM', weekly: 'Weekly: mon 09:00', at: 'Once: 2026-12-24T09:00', cron: 'Cron' };

function timing(kind, v) {
  const [a, b] = v.trim().split(' ');
  return { every: { seconds: +a }, daily: { time: a }, weekly: { weekday: a, time: b || '' }, at: { at: a }, cron: { rule: v.trim() } }[kind];
}

export async function show(main, ctx) {
  const s = ctx.team.state || {};
  const places = [...(s.bots || []).filter((b) => !b.hidden).map((b) => [`botId:${b.id}`, b.name]), ...(s.rooms || []).map((r) => [`roomId:${r.id}`, `Room ${r.name}`])];
  const nameOf = (r) => places.find(([k]) => k.endsWith(`:${r.botId || r.roomId}`))?.[1];
  const inputs = { target: h('select', {}, places.map(([k, n]) => h('option', { value: k }, n))), title: h('input'), prompt: h('textarea'), kind: h('select', {}, Object.entries(KINDS).map(([k, n]) => h('option', { value: k }, n))), when: h('input', { value: '3600' }) };
  const errors = {};
  const { call } = ctx.api;
  const field = (key, label) => {
    errors[key] = h('p', { class: 'field-error', id: `sc-${key}-e` });
    Object.assign(inputs[key], { id: `sc-${key}` }).setAttribute('aria-describedby', `sc-${key}-e`);
    return h('div', { class: 'field' }, h('label', { for: `sc-${key}` }, label), inputs[key], errors[key]);
  };
  const list = h('div', { 'aria-live': 'polite' });
  const note = h('p', { class: 'form-error', role: 'alert' });
  const load = async () => {
    const a = await call('schedules', {});
    const row = (r) => {
      const L = r.lastRun;
      const btn = (t, ep) => h('button', { type: 'button', 'aria-label': `${t} ${r.title}`, onclick: () => call(ep, { sessionId: r.sessionId, id: r.id }).then(load, (e) => (note.textContent = e.message)) }, t);
      return h('tr', {}, [r.title, nameOf(r), Object.values(r.when).join(' '), when(r.nextRunAt), r.status, L ? `${L.result}${L.missed ? ' (missed)' : ''} ${when(L.at)} ${L.reason || ''}` : ''].map((t) => h('td', {}, t)),
        h('td', {}, btn(r.status === 'paused' ? 'Resume' : 'Pause', r.status === 'paused' ? 'schedule-resume' : 'schedule-pause'), btn('Retry', 'schedule-retry'), btn('Delete', 'schedule-delete')));
    };
    replace(list, a.automation ? null : h('p', { class: 'notice' }, 'Automation is off: no task runs.'), a.quietUnchecked ? h('p', { class: 'notice' }, 'Quiet hours do not check repeat or cron tasks; a run inside them is held.') : null,
      a.schedules.length ? h('div', { class: 'table-wrap' }, h('table', {}, h('tr', {}, ['Task', 'Chat', 'When', 'Next run', 'Status', 'Last run', ''].map((t) => h('th', { scope: 'col' }, t))), a.schedules.map(row))) : h('p', { class: 'muted' }, 'No tasks yet.'));
  };
  const form = h('form', {}, field('target', 'Chat'), field('title', 'Title'), field('prompt', 'Prompt'), field('kind', 'Repeats'), field('when', 'When'), h('button', { class: 'primary' }, 'Schedule'));
  form.onsubmit = async (ev) => {
    ev.preventDefault();
    for (const e of Object.values(errors)) e.textContent = '';
    const [k, id] = inputs.target.value.split(':');
    try {
      await call('schedule-create', { [k]: id, title: inputs.title.value, prompt: inputs.prompt.value, when: { kind: inputs.kind.value, ...timing(inputs.kind.value, inputs.when.value) } });
      inputs.title.value = inputs.prompt.value = '';
      await load();
    } catch (e) {
      (errors[(e.field || '').split('.')[0]] || errors.when).textContent = e.message;
    }
  };
  replace(main, h('h1', {}, 'Scheduled tasks'), note, list, h('h2', {}, 'New task'), form);
  await load();
  return ctx.live.on('revision', () => load().catch(() => {}));
}
