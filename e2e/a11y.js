// The accessibility check (issue 12): axe-core through @axe-core/playwright
// on the page as drawn, failing on any serious or critical violation.
'use strict';

const { AxeBuilder } = require('@axe-core/playwright');
const { expect } = require('@playwright/test');

/** Runs axe on `page` and fails with a readable list of what it found. */
async function expectAccessible(page, screen) {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
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
