// Chat entries (`messages`' short form, endpoints/chat/own_chat.rs) as elements; a failed turn shows its entry's sentence (#1347); text is always text (#130).

import { h, when } from '../dom.js';
import { markdown } from './markdown.js';

const STEP_KEYS = ['command', 'cmd', 'argv', 'pattern', 'query', 'url', 'file_path', 'path'];

/** What a call acts on (#546): the first telling argument, one line, ≤ 80 chars. */
function stepOf(argumentsText) {
  let args = null;
  try {
    args = JSON.parse(argumentsText);
  } catch {}
  let value = null;
  if (args && typeof args === 'object') {
    for (const key of [...STEP_KEYS, 'description']) {
      if (typeof args[key] === 'string' && args[key].trim()) {
        value = args[key];
        break;
      }
      if (Array.isArray(args[key]) && args[key].length) {
        value = args[key].join(' ');
        break;
      }
    }
  } else if (typeof argumentsText === 'string') {
    // The transcript clips long arguments, so the JSON may be cut: look for the key.
    for (const key of [...STEP_KEYS, 'description']) {
      const match = argumentsText.match(new RegExp(`"${key}"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)`));
      if (match) {
        value = match[1].replace(/\\n/g, ' ').replace(/\\"/g, '"');
        break;
      }
    }
  }
  if (!value) return '';
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** The sentence for a turn's end (a failed one's #1347 `sentence` first), or null for one that just completed. */
function endSentence(reason, sentence) {
  switch (reason?.kind) {
    case 'error':
      return { failed: true, text: `This turn failed. ${sentence || reason.message || reason.code || 'The model did not answer.'}` };
    case 'blocked':
      return { failed: true, text: `This turn was stopped by a rule: ${reason.reason}` };
    case 'max-tokens':
      return { failed: true, text: 'The answer reached its token limit.' };
    case 'interrupted':
      return { failed: false, text: 'A restart cut this turn.' };
    case 'aborted':
      return { failed: false, text: reason.by === 'user' ? 'Stopped.' : 'This turn was stopped.' };
    default:
      return null;
  }
}

function who(entry, names) {
  const source = entry.source || {};
  if (source.kind === 'bot') return `From ${names.bot(source.botId) || 'another Bot'}`;
  if (source.kind === 'host') return 'FlyBot';
  if (source.memberId && source.memberId !== names.me) return names.member(source.memberId) || 'A member';
  return 'You';
}

/** A tool call's row: name, step, arguments and (once it came) the result. */
function toolRow(entry) {
  const step = stepOf(entry.text);
  const details = h(
    'details',
    { class: 'tool', dataset: { call: entry.toolCallId || '', turn: entry.turnId || '' } },
    h(
      'summary',
      {},
      h('span', { class: 'tool-name' }, entry.name),
      step ? h('span', { class: 'tool-step' }, step) : null,
      h('span', { class: 'tool-state muted' }, ' · running'),
    ),
    h('span', { class: 'result-label' }, 'Arguments'),
    h('pre', {}, entry.text || ''),
  );
  return details;
}

/** Puts a tool result into its call's row. */
export function attachResult(row, entry) {
  row.querySelector('.tool-state').textContent = entry.isError ? ' · failed' : ' · done';
  row.classList.toggle('error', Boolean(entry.isError));
  row.append(h('span', { class: 'result-label' }, entry.isError ? 'Error' : 'Result'), h('pre', {}, entry.text || ''));
}

/** A host event in the chat (issue 31: a task wake reads "Working on 'Write a haiku'"): one muted line, never a person's bubble. */
export function eventLine(entry) {
  return h('p', { class: 'chat-event muted', title: when(entry.at), dataset: { seq: entry.seq, event: entry.text || '' } }, entry.text || '');
}

/** The element for one entry, or null when it draws nothing (a completed turn's end, an answer with no text and no files). */
export function entryNode(entry, names) {
  switch (entry.kind) {
    case 'user':
      return h('div', { class: `msg user${who(entry, names) === 'You' ? ' own' : ''}`, title: when(entry.at), dataset: { seq: entry.seq, turn: entry.turnId || '' } }, h('span', { class: 'who' }, who(entry, names)), entry.text);
    case 'assistant':
      // An answer that only attaches files (attach_file, issue 32) is still drawn: its files follow the name.
      if (!entry.text && !entry.attachments?.length) return null;
      return h('div', { class: 'msg assistant', title: when(entry.at), dataset: { seq: entry.seq, turn: entry.turnId || '' } }, h('span', { class: 'who' }, names.self()), entry.text ? markdown(entry.text) : null);
    case 'event':
      return eventLine(entry);
    case 'question':
      return h('div', { class: 'msg question', dataset: { seq: entry.seq } }, h('span', { class: 'who' }, `${names.self()} asks`), entry.text);
    case 'tool-call':
      return toolRow(entry);
    case 'tool-result':
      return h('div', { class: `tool${entry.isError ? ' error' : ''}` }, h('span', { class: 'result-label' }, entry.isError ? 'Tool error' : 'Tool result'), h('pre', {}, entry.text || ''));
    case 'turn-end': {
      const end = endSentence(entry.reason, entry.sentence);
      if (!end) return null;
      return h('p', { class: `turn-note${end.failed ? ' failed' : ''}`, role: end.failed ? 'note' : null }, end.text);
    }
    default:
      return null;
  }
}
