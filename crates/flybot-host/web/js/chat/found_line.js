// Opening a conversation at a search hit (#/bot/<id>/line/<seq>, #/room/<id>/line/<seq>): the line is scrolled to the middle of the log, marked and focused.

/** Marks the line `seq` in `log` as found and brings it into view; whether it was there. */
export function showLine(log, seq) {
  const node = log.querySelector(`[data-seq="${Number(seq)}"]`);
  if (!node) return false;
  for (const old of log.querySelectorAll('.found')) old.classList.remove('found');
  node.classList.add('found');
  node.setAttribute('tabindex', '-1');
  node.scrollIntoView({ block: 'center' });
  node.focus({ preventScroll: true });
  return true;
}
