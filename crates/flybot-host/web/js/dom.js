// Building the page's elements: text is always set as text, never parsed as HTML (#130).

/** h('button', {class: 'x', onclick: fn}, 'Stop', child...): "on…" attributes are listeners, null/false skipped. */
export function h(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element (for the flowchart and charts), same rules as `h`. */
export function svg(tag, attrs = {}, ...children) {
  return fill(document.createElementNS('http://www.w3.org/2000/svg', tag), attrs, children);
}

function fill(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces everything in `el` with `children`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Redraws `el` as `children` without swapping what reads the same: a child
 * shown is kept when it is the new one, equal to it, or `keep(child)` says
 * it holds the person's work; only the others are replaced, and a refusal
 * one shows goes on in its replacement (`carryAlerts`). A different count of
 * children redraws them all.
 */
export function redrawChildren(el, children, keep = () => false) {
  const fresh = children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false);
  const shown = [...el.children];
  if (shown.length !== fresh.length || el.childNodes.length !== shown.length) return replace(el, fresh);
  fresh.forEach((next, i) => {
    const old = shown[i];
    if (old === next || keep(old)) return;
    carryAlerts(old, next);
    if (!old.isEqualNode(next)) old.replaceWith(next);
  });
  return el;
}

/**
 * Carries the refusals `old` shows (its alert lines that hold text) into
 * `next`, line for line, where `next`'s line is empty: a redraw comes with
 * any change on the team and must not eat a refusal the person has not read.
 * Lines that no longer pair one to one are left as drawn.
 */
function carryAlerts(old, next) {
  const from = [...old.querySelectorAll('[role="alert"]')];
  const to = [...next.querySelectorAll('[role="alert"]')];
  if (from.length !== to.length) return;
  from.forEach((line, i) => {
    if (!line.textContent || to[i].textContent) return;
    to[i].textContent = line.textContent;
    to[i].hidden = line.hidden;
  });
}

/** `n word`, with an s unless n is 1. */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A time in the person's locale, from milliseconds since the epoch. */
export function when(ms) {
  if (!ms) return '';
  return new Date(ms).toLocaleString();
}

/** One run of `pass` at a time: a call while it runs is coalesced into one more pass, until `stop()`. */
export function coalesce(pass, stop = () => false) {
  let running = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await pass();
      } while (again && !stop());
    })().finally(() => {
      running = null;
    });
    return running;
  };
}
