import path from 'node:path';
import type { Page } from 'playwright-core';
import { aCronJob } from '@cronsvc/core/testing';
import { accessibilityProblems, csrfOf, SCREENSHOTS, useConsole } from './console-fixture.js';

// Tags in the console: chips on the jobs list and a job's page, the tag filter, and pause or
// resume by tag after a question that says how many jobs; checked through the API.
const f = useConsole();
let page: Page;

beforeAll(async () => {
  page = await f.signedInPage();
  await f.createJob(aCronJob({ name: 'invoices', tags: ['billing', 'nightly'] }));
  await f.createJob(aCronJob({ name: 'reminders', tags: ['billing'] }));
  await f.createJob(aCronJob({ name: 'report', tags: ['reports'] }));
});

const states = async () => Object.fromEntries(((await f.get('/v1/jobs')).body.data as { name: string; state: string }[]).map((j) => [j.name, j.state]));

it('shows tags as chips, filters by tag, and pauses and resumes every job of a tag after saying how many', async () => {
  await page.goto(`${f.base}/console/jobs`);
  const invoices = page.getByRole('row').filter({ hasText: 'invoices' });
  await expect(invoices.getByRole('list', { name: 'Tags' }).getByRole('link').allInnerTexts()).resolves.toEqual(['billing', 'nightly']);
  await invoices.getByRole('link', { name: 'billing' }).click();
  await page.waitForURL(/\/console\/jobs\?tag=billing$/);
  await expect(page.getByLabel('Tag', { exact: true }).inputValue()).resolves.toBe('billing');
  await expect(page.locator('#jobs-results tbody tr').count()).resolves.toBe(2);
  await expect(page.getByRole('group', { name: 'Jobs tagged billing' }).innerText()).resolves.toContain('2 active, 0 paused');
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'jobs-tagged.png'), fullPage: true });

  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.getByRole('button', { name: 'Pause 2 active' }).click();
  expect(await states()).toEqual({ invoices: 'active', reminders: 'active', report: 'active' });

  let asked = '';
  page.once('dialog', (dialog) => {
    asked = dialog.message();
    void dialog.accept();
  });
  await page.getByRole('button', { name: 'Pause 2 active' }).click();
  await page.waitForURL(/\?tag=billing&done=tag-paused&n=2$/);
  expect(asked).toBe('Pause the 2 active jobs tagged "billing"?');
  await expect(page.getByRole('status').innerText()).resolves.toBe('Jobs paused: 2.');
  expect(await states()).toEqual({ invoices: 'paused', reminders: 'paused', report: 'active' });

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Resume 2 paused' }).click();
  await page.waitForURL(/done=tag-resumed&n=2$/);
  expect(await states()).toEqual({ invoices: 'active', reminders: 'active', report: 'active' });

  // The tag filter is a select of the workspace's tags.
  await page.getByLabel('Tag', { exact: true }).selectOption('reports');
  await page.waitForURL(/tag=reports/);
  await expect(page.locator('#jobs-results tbody tr').count()).resolves.toBe(1);

  // A job's page shows its tags too.
  await page.getByRole('link', { name: 'report', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Tags' }).innerText()).resolves.toContain('reports');
  expect(await accessibilityProblems(page)).toEqual([]);
});

it('asks on a page of its own, with the number of jobs, when the browser runs no script, and needs the CSRF token', async () => {
  const { agent, csrf } = await f.signedInAgent();
  const asked = await agent.post('/console/tags/billing/pause').type('form').send({ _csrf: csrf });
  expect(asked.status).toBe(200);
  expect(asked.text).toContain('Pause the 2 active jobs tagged &quot;billing&quot;?');
  expect(await states()).toEqual({ invoices: 'active', reminders: 'active', report: 'active' });
  expect((await agent.post('/console/tags/billing/pause').type('form').send({ confirmed: 'yes' })).status).toBe(403);
  const done = await agent.post('/console/tags/billing/pause').type('form').send({ _csrf: csrfOf(asked.text), confirmed: 'yes' });
  expect(done.status).toBe(303);
  expect(await states()).toEqual({ invoices: 'paused', reminders: 'paused', report: 'active' });
});
