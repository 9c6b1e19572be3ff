import path from 'node:path';
import type { Page } from 'playwright-core';
import { aCronJob, aMonitorBody } from '@cronsvc/core/testing';
import { accessibilityProblems, csrfOf, PHONE, SCREENSHOTS, scrollsSideways, useConsole } from './console-fixture.js';

// Status pages in the console (docs/CONSOLE.md, "Status pages"): create one naming jobs and
// monitors by checkbox, copy its public URL, edit it, delete it; checked through the API.
const f = useConsole();
let page: Page;

beforeAll(async () => {
  page = await f.signedInPage();
  await f.createJob(aCronJob({ name: 'invoices' }));
  await f.createJob(aCronJob({ name: 'reminders' }));
  await f.post('/v1/monitors', aMonitorBody({ name: 'backups' })).expect(201);
});

const pages = async () => (await f.get('/v1/status-pages')).body.data as { id: string; name: string; job_ids: string[]; monitor_ids: string[]; public_url: string }[];

it('creates a status page from ticked jobs and monitors, shows its public URL to copy, edits and deletes it', async () => {
  await page.goto(`${f.base}/console/status-pages`);
  await expect(page.getByText('No status pages yet.').isVisible()).resolves.toBe(true);
  expect(await accessibilityProblems(page)).toEqual([]);

  // A name is needed: the error is said above the form, and what was ticked stays ticked.
  await page.getByRole('group', { name: 'Jobs to show' }).getByLabel('invoices').check();
  await page.getByRole('button', { name: 'Create status page' }).click();
  await expect(page.getByRole('alert').innerText()).resolves.toContain('The status page was not created.');
  await expect(page.getByRole('group', { name: 'Jobs to show' }).getByLabel('invoices').isChecked()).resolves.toBe(true);
  expect(await accessibilityProblems(page)).toEqual([]);

  await page.getByLabel('Name').fill('Acme status');
  await page.getByRole('group', { name: 'Monitors to show' }).getByLabel('backups').check();
  await page.getByRole('button', { name: 'Create status page' }).click();
  await page.waitForURL(/\/console\/status-pages\/stp_[^/?]+\?done=status-page-created$/);
  await expect(page.getByRole('status').innerText()).resolves.toContain('Status page created');
  const [created] = await pages();
  expect(created).toMatchObject({ name: 'Acme status', monitor_ids: [expect.stringMatching(/^mon_/)] });
  expect(created.job_ids).toHaveLength(1);
  await expect(page.getByLabel('Public URL of Acme status').inputValue()).resolves.toBe(created.public_url);

  // Edit: untick the job, tick the other one, rename.
  await page.getByLabel('Name').fill('Acme');
  await page.getByRole('group', { name: 'Jobs to show' }).getByLabel('invoices').uncheck();
  await page.getByRole('group', { name: 'Jobs to show' }).getByLabel('reminders').check();
  await page.getByRole('button', { name: 'Save status page' }).click();
  await page.waitForURL(/done=status-page-saved$/);
  const [saved] = await pages();
  expect(saved).toMatchObject({ id: created.id, name: 'Acme', public_url: created.public_url, monitor_ids: created.monitor_ids });
  expect(saved.job_ids).not.toEqual(created.job_ids);
  expect(await accessibilityProblems(page)).toEqual([]);

  // The list names it with its URL and a Copy button; readable at a phone's width.
  await page.getByRole('navigation').getByRole('link', { name: 'Status pages' }).click();
  const row = page.getByRole('row').filter({ hasText: 'Acme' });
  await expect(row.getByRole('textbox').inputValue()).resolves.toBe(created.public_url);
  await expect(row.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true);
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'status-pages.png'), fullPage: true });
  await page.setViewportSize(PHONE);
  expect(await scrollsSideways(page)).toBe(false);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'status-pages-phone.png'), fullPage: true });

  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL(/done=status-page-deleted$/);
  expect(await pages()).toEqual([]);
  // Each change is in the audit log as the console's.
  const events = ((await f.get('/v1/audit-events')).body.data as { action: string; actor: { type: string } }[]).filter((e) => e.action.startsWith('status_page.'));
  expect(events.map((e) => [e.action, e.actor.type])).toEqual([['status_page.deleted', 'console'], ['status_page.updated', 'console'], ['status_page.created', 'console']]);
});

it('asks on a page of its own before deleting when no script runs, and needs the CSRF token', async () => {
  const created = (await f.post('/v1/status-pages', { name: 'Wallboard' }).expect(201)).body;
  const { agent, csrf } = await f.signedInAgent();
  expect((await agent.post('/console/status-pages').type('form').send({ name: 'no token' })).status).toBe(403);
  const asked = await agent.post(`/console/status-pages/${created.id}/delete`).type('form').send({ _csrf: csrf });
  expect(asked.status).toBe(200);
  expect(asked.text).toContain('Delete the status page &quot;Wallboard&quot;?');
  const done = await agent.post(`/console/status-pages/${created.id}/delete`).type('form').send({ _csrf: csrfOf(asked.text), confirmed: 'yes' });
  expect(done.status).toBe(303);
  expect(await pages()).toEqual([]);
  const unknown = await agent.post('/console/status-pages').type('form').send({ _csrf: csrf, name: 'x', job_ids: 'job_doesnotexist' });
  expect(unknown.status).toBe(400);
  expect(unknown.text).toContain('no job job_doesnotexist in this workspace');
});
