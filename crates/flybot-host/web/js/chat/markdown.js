// Answers drawn as CommonMark with GitHub's tables, task lists and strikethrough: the vendored marked lexer
// (web/js/vendor/marked.esm.js, MIT) reads the text into tokens, and this module builds DOM nodes from them with
// text only (#130: no innerHTML, raw HTML in an answer shows as the text it is). Links go out only to http(s),
// in a new tab with rel="noopener noreferrer"; images are not loaded, their link is shown instead.

import { Lexer } from '../vendor/marked.esm.js';
import { h } from '../dom.js';

const NAMED = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', trade: '™', hellip: '…', mdash: '—', ndash: '–', laquo: '«', raquo: '»', middot: '·', times: '×', deg: '°' };

/** Text with its character references decoded (marked leaves them for an HTML renderer). */
function decode(text) {
  if (!text.includes('&')) return text;
  return text.replace(/&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g, (whole, name) => {
    if (name[0] !== '#') return NAMED[name] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
  });
}

/** The link's address when it is http(s), else null. */
export function safeHref(href) {
  try {
    const url = new URL(href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function link(href, children) {
  const safe = safeHref(href || '');
  if (!safe) return h('span', { class: 'md-link-refused' }, ...children);
  return h('a', { href: safe, rel: 'noopener noreferrer', target: '_blank' }, ...children);
}

function inline(tokens) {
  const out = [];
  for (const token of tokens || []) {
    switch (token.type) {
      case 'text':
        out.push(...(token.tokens ? inline(token.tokens) : [decode(token.text)]));
        break;
      case 'escape':
        out.push(token.text);
        break;
      case 'strong':
        out.push(h('strong', {}, ...inline(token.tokens)));
        break;
      case 'em':
        out.push(h('em', {}, ...inline(token.tokens)));
        break;
      case 'del':
        out.push(h('del', {}, ...inline(token.tokens)));
        break;
      case 'codespan':
        out.push(h('code', {}, token.text));
        break;
      case 'br':
        out.push(h('br'));
        break;
      case 'link':
        out.push(link(token.href, inline(token.tokens)));
        break;
      case 'image':
        out.push(link(token.href, [`Image: ${decode(token.text || token.href || '')}`]));
        break;
      case 'checkbox':
        out.push(token.checked ? '☑ ' : '☐ ');
        break;
      default:
        // Raw HTML (`html`, `tag`) and anything new: the text as written.
        out.push(token.raw ?? token.text ?? '');
    }
  }
  return out;
}

/** A code block: its language, a Copy button, and the code in monospace that scrolls sideways. */
export function codeBlock(code, lang) {
  const copy = h('button', { type: 'button', class: 'md-copy', 'aria-label': lang ? `Copy the ${lang} code` : 'Copy the code' }, 'Copy');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(code);
      copy.textContent = 'Copied';
    } catch {
      copy.textContent = 'Copy failed';
    }
    setTimeout(() => (copy.textContent = 'Copy'), 1500);
  });
  return h(
    'div',
    { class: 'md-code' },
    h('div', { class: 'md-code-head' }, h('span', { class: 'md-lang' }, lang || 'code'), copy),
    h('pre', { tabindex: '0' }, h('code', {}, code)),
  );
}

function table(token) {
  const cell = (tag, c) => h(tag, { class: c.align ? `md-align-${c.align}` : null }, ...inline(c.tokens));
  return h(
    'div',
    { class: 'md-table', tabindex: '0' },
    h('table', {}, h('thead', {}, h('tr', {}, ...token.header.map((c) => cell('th', c)))), h('tbody', {}, ...token.rows.map((row) => h('tr', {}, ...row.map((c) => cell('td', c)))))),
  );
}

function list(token) {
  const items = token.items.map((item) => h('li', {}, ...blocks(item.tokens)));
  if (!token.ordered) return h('ul', {}, ...items);
  const start = Number(token.start);
  return h('ol', { start: Number.isInteger(start) && start !== 1 ? String(start) : null }, ...items);
}

function blocks(tokens) {
  const out = [];
  for (const token of tokens || []) {
    switch (token.type) {
      case 'space':
      case 'def':
        break;
      case 'paragraph':
        out.push(h('p', {}, ...inline(token.tokens)));
        break;
      case 'text':
        // A tight list item's text (no paragraph around it).
        out.push(...(token.tokens ? inline(token.tokens) : [decode(token.text)]));
        break;
      case 'heading':
        // Headings inside an answer stay out of the page's outline: bold lines, sized by level.
        out.push(h('p', { class: `md-h md-h${Math.min(token.depth, 4)}` }, h('strong', {}, ...inline(token.tokens))));
        break;
      case 'code':
        out.push(codeBlock(token.text, (token.lang || '').split(/\s/)[0]));
        break;
      case 'blockquote':
        out.push(h('blockquote', {}, ...blocks(token.tokens)));
        break;
      case 'list':
        out.push(list(token));
        break;
      case 'table':
        out.push(table(token));
        break;
      case 'hr':
        out.push(h('hr'));
        break;
      case 'checkbox':
        out.push(token.checked ? '☑ ' : '☐ ');
        break;
      default:
        // Raw HTML blocks and anything new: the text as written.
        out.push(h('p', {}, token.raw ?? token.text ?? ''));
    }
  }
  return out;
}

/** The element for an answer's text: `div.md` holding its blocks. */
export function markdown(text) {
  let tokens = [];
  try {
    tokens = Lexer.lex(text || '', { gfm: true, breaks: false });
  } catch {
    return h('div', { class: 'md' }, h('p', {}, text || ''));
  }
  return h('div', { class: 'md' }, ...blocks(tokens));
}
