// The About block's own parts (#374, #68): the build the binary was stamped with (branch, commit, pinned), how far behind its branch it is ("unknown" when no check answered), FlyBot's links, and the owner's download of the home's diagnostics log (`diagnostics-log`).

import { h, plural } from '../dom.js';

/** `flybot 0.1.0 · main 0123456`, `… · 0123456 (pinned)`, or just the version without a stamp. */
export function buildText(d) {
  const b = d.build;
  if (!b) return `flybot ${d.version}`;
  const parts = [b.branch, b.commit].filter(Boolean).join(' ');
  return `flybot ${d.version} · ${parts}${b.pinned ? ' (pinned)' : ''}`;
}

/** The About list's extra rows, as [dt, dd] pairs for `item`. */
export function aboutRows(d, item) {
  const rows = [];
  // #374: `behind` is null when no check answered (the check is off unless the owner sets FLYBOT_UPDATE_CHECK, or the branch diverged): say so, never "Up to date".
  const known = d.behind !== null && d.behind !== undefined;
  rows.push(item('Updates', !known ? 'Unknown: no update check answered' : d.behind === 0 ? 'Up to date' : `${plural(d.behind, 'commit')} behind`));
  const link = (href, text) => h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, text);
  const links = d.links || {};
  rows.push(
    item(
      'FlyBot',
      h('span', { class: 'about-links' }, link(links.repository, 'Source code'), ' · ', link(links.releases, 'Release notes'), ' · ', link(links.issues, 'Report a problem')),
    ),
  );
  return rows;
}

/** The Download diagnostics log button and the line it reports to. */
export function downloadLog(ctx) {
  const said = h('span', { class: 'muted', 'aria-live': 'polite' });
  const button = h('button', {
    type: 'button',
    onclick: async () => {
      button.disabled = true;
      said.textContent = '';
      try {
        const log = await ctx.api.call('diagnostics-log', {});
        if (!log.bytes) {
          said.textContent = 'The diagnostics log is empty: nothing has gone wrong yet.';
          return;
        }
        const url = URL.createObjectURL(new Blob([log.text], { type: 'text/plain' }));
        const a = h('a', { href: url, download: log.name });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 0);
      } catch (refusal) {
        said.textContent = refusal.message;
      } finally {
        button.disabled = false;
      }
    },
  }, 'Download diagnostics log');
  return h('div', { class: 'actions' }, button, said);
}
