import path from 'node:path';
import { aCronJob, aMonitorBody, aToken } from '@cronsvc/core/testing';
import { accessibilityProblems, SCREENSHOTS, useConsole } from './console-fixture.js';

// A console session opened with a read token shows no control it may not use (docs/CONSOLE.md,
// "Scopes"); the server refuses such a POST anyway (apps/api/test/permissions.test.ts).
const f = useConsole();

it('hides every write and run control under a read token, and shows them under a full one', async () => {
  const job = await f.createJob(aCronJob({ name: 'nightly export', request: { url: `${f.target.url}/ok` } }));
  expect((await f.post('/v1/monitors', aMonitorBody({ name: 'backup' }))).status).toBe(201);
  expect((await f.post('/v1/secrets', { name: 'KEY', value: 'v' })).status).toBe(201);
  const reader = await aToken(f.ctx.runtime, f.workspaceId, { scope: 'read', name: 'wallboard' });

  const page = await f.signedInPage(undefined, reader.api_token);
  const nav = page.getByRole('navigation', { name: 'Console' });
  await page.goto(`${f.base}/console/jobs`);
  await page.getByRole('link', { name: 'nightly export' }).waitFor();
  expect(await page.getByRole('link', { name: 'Create a job' }).count()).toBe(0);
  expect(await page.getByRole('link', { name: 'Import a crontab' }).count()).toBe(0);
  expect(await nav.getByRole('link', { name: 'New job' }).count()).toBe(0);

  await page.goto(`${f.base}/console/jobs/${job.id}`);
  await page.getByRole('heading', { name: 'nightly export' }).waitFor();
  for (const name of ['Run now', 'Pause', 'Edit', 'Delete', 'Add rule']) expect([name, await page.getByRole('button', { name }).count()]).toEqual([name, 0]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'read-token-job.png'), fullPage: true });
  expect(await accessibilityProblems(page)).toEqual([]);

  await page.goto(`${f.base}/console/monitors`);
  for (const name of ['Pause', 'Delete', 'Create monitor']) expect([name, await page.getByRole('button', { name }).count()]).toEqual([name, 0]);
  await page.goto(`${f.base}/console/secrets`);
  for (const name of ['Set value', 'Delete', 'Create secret']) expect([name, await page.getByRole('button', { name }).count()]).toEqual([name, 0]);
  await page.goto(`${f.base}/console/tokens`);
  await page.getByRole('heading', { name: 'API tokens' }).waitFor();
  for (const name of ['Delete', 'Create token']) expect([name, await page.getByRole('button', { name }).count()]).toEqual([name, 0]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'read-token-tokens.png'), fullPage: true });
  await page.goto(`${f.base}/console/audit`);
  await page.getByRole('heading', { name: 'Audit log' }).waitFor();
  expect(await accessibilityProblems(page)).toEqual([]);
  // A page that only writes is refused.
  const refused = await page.goto(`${f.base}/console/jobs/new`);
  expect(refused?.status()).toBe(403);
  await page.context().close();

  const full = await f.signedInPage();
  await full.goto(`${f.base}/console/jobs/${job.id}`);
  for (const name of ['Run now', 'Pause', 'Edit', 'Delete']) await full.getByRole('button', { name }).first().waitFor();
  await full.goto(`${f.base}/console/tokens`);
  await full.getByLabel('Name').fill('deploy pipeline');
  await full.getByLabel('Scope').selectOption('run');
  await full.getByRole('button', { name: 'Create token' }).click();
  const shown = await full.locator('[data-token]').innerText();
  expect(shown).toMatch(/^csk_/);
  await full.screenshot({ path: path.join(SCREENSHOTS, 'tokens-created.png'), fullPage: true });
  expect(await accessibilityProblems(full)).toEqual([]);
  // Shown once: the list shows its first 12 characters only.
  await full.goto(`${f.base}/console/tokens`);
  expect(await full.content()).not.toContain(shown);
  expect(await full.content()).toContain(shown.slice(0, 12));
  await full.goto(`${f.base}/console/audit?action=token.created`);
  await full.getByRole('cell', { name: 'token.created' }).first().waitFor();
  await full.screenshot({ path: path.join(SCREENSHOTS, 'audit-log.png'), fullPage: true });
  await full.context().close();
});
