// The accessibility check (issue 12): axe-core through @axe-core/playwright
// on the page as drawn, failing on any serious or critical violation.
'use strict';

const { AxeBuilder } = require('@axe-core/playwright');
const { expect } = require('@playwright/test');

/** The rules whose verdict depends on the colours drawn, not the markup. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * Runs axe on `page` and fails with a readable list of what it found;
 * `coloursOnly` runs only the colour rules, for a page whose markup a full
 * run has already checked in another theme (issue 38).
 */
async function expectAccessible(page, screen, { coloursOnly = false } = {}) {
  const builder = new AxeBuilder({ page });
  const results = await (coloursOnly
    ? builder.withRules(COLOUR_RULES)
    : builder.withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
  ).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = bad.map(
    (v) =>
      `${v.impact} ${v.id}: ${v.help}\n` +
      v.nodes
        .slice(0, 5)
        .map((n) => `    ${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1).join(' ')}`)
        .join('\n'),
  );
  expect(report, `axe on the ${screen} screen`).toEqual([]);
}

module.exports = { expectAccessible };
