// A refusal in Settings stays through the redraws any change on the team
// brings: Settings swaps each section that reads differently, and a section
// swapped for its fresh twin used to drop the refusal it showed.
'use strict';

const { test, expect, open } = require('../fixtures');

test('a refusal in Settings stays on the screen while the team changes under it', async ({ page, host }) => {
  await open(page, host, '#/settings');
  const people = page.getByRole('region', { name: 'Members and invitations' });
  await people.getByLabel('Invite someone').fill('n'.repeat(81));
  await people.getByRole('button', { name: 'Invite', exact: true }).click();
  const refusal = people.getByRole('alert');
  await expect(refusal).toHaveText('A name is at most 80 characters; shorten it.');
  // Made elsewhere: the section is drawn again with the new invitation in it.
  await host.api.call('auth-invite', { name: 'Grace' });
  await expect(people.getByRole('button', { name: 'Revoke Grace' })).toBeVisible();
  await expect(refusal).toHaveText('A name is at most 80 characters; shorten it.');
  await expect(people.getByLabel('Invite someone')).toHaveValue('n'.repeat(81));
  await people.screenshot({ path: test.info().outputPath('settings-invite-refused.png') });
  // The next try clears it.
  await people.getByLabel('Invite someone').fill('Ada');
  await people.getByRole('button', { name: 'Invite', exact: true }).click();
  await expect(people.getByText('Give this code to the person; it is shown only now:')).toBeVisible();
  await expect(refusal).toHaveText('');
});
