import path from 'node:path';
import { fireDueJobs } from '@cronsvc/core';
import { anOutageOf, aRecurringJob, waitFor } from '@cronsvc/core/testing';
import { accessibilityProblems, DESKTOP, PHONE, SCREENSHOTS, scrollsSideways, useConsole } from './console-fixture.js';

// The fire ledger in the console (docs/CONSOLE.md): a job's page shows its recent fires as a
// strip, each with its time and a link to its execution; the jobs list counts missed slots.
const f = useConsole();

it('shows a job’s recent fires (caught up, missed, fired) linked to their executions, and the missed count on the jobs list', async () => {
  // Every 10 minutes: the slot after the outage is 5 minutes away, so it stays out of the strip however slow the page.
  const job = await f.createJob(aRecurringJob({ name: 'ledger in the console', schedule: { every_n_minutes: 10 }, request: { url: `${f.target.url}/tick` } }));
  const quiet = await f.createJob(aRecurringJob({ name: 'quiet job', request: { url: `${f.target.url}/quiet` } }));
  const slots = await anOutageOf(f.ctx.runtime, job.id, 3);
  await fireDueJobs(f.ctx.runtime, { lookaheadMs: 0 });
  const catchUp = await waitFor(async () => {
    const fires = (await f.get(`/v1/jobs/${job.id}/fires`)).body.data as Record<string, any>[];
    return fires.find((x) => x.outcome === 'caught_up');
  }, { what: 'the catch-up to go out' });

  for (const viewport of [DESKTOP, PHONE]) {
    const page = await f.signedInPage(viewport);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'ledger in the console' }) });
    await expect(row.getByRole('link', { name: '2 missed' }).isVisible()).resolves.toBe(true);
    const quietRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'quiet job' }) });
    await expect(quietRow.locator('td[data-label="Missed (24 h)"]').innerText()).resolves.toBe('0');
    expect(quiet.id).toMatch(/^job_/);

    await row.getByRole('link', { name: 'ledger in the console' }).click();
    const strip = page.getByRole('list', { name: 'Recent fires, oldest first' });
    await strip.waitFor();
    const items = strip.getByRole('listitem');
    await expect(items.count()).resolves.toBe(3);
    await expect(items.nth(0).innerText()).resolves.toContain('caught up');
    await expect(items.nth(0).innerText()).resolves.toContain(slots[0].toISOString().slice(0, 19).replace('T', ' '));
    await expect(items.nth(1).innerText()).resolves.toContain('missed');
    await expect(items.nth(2).innerText()).resolves.toContain('covered by the catch-up');
    await expect(page.getByText('Last 3 expected fires: 1 caught up, 2 missed.').isVisible()).resolves.toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(await scrollsSideways(page)).toBe(false);
    await page.screenshot({ path: path.join(SCREENSHOTS, `job-fires-${viewport.width}.png`), fullPage: true });
    // Each fire with an execution links to it: the catch-up and the missed slots it covered.
    await items.nth(1).getByRole('link', { name: 'missed' }).click();
    await page.waitForURL(new RegExp(`/console/executions/${catchUp.execution_id}$`));
    await page.context().close();
  }
});

it('takes the fire policies in New job and the edit form, and hides them for kinds without a schedule', async () => {
  const page = await f.signedInPage();
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'New job' }).click();
  await page.getByLabel('Kind', { exact: true }).selectOption('cron');
  await page.getByLabel('Name', { exact: true }).fill('with policies');
  await page.getByLabel('Cron', { exact: true }).fill('*/5 * * * *');
  await page.getByLabel('URL', { exact: true }).fill(`${f.target.url}/p`);
  await page.getByLabel('Overlap policy', { exact: true }).selectOption('skip');
  await page.getByLabel('Catch-up policy', { exact: true }).selectOption('none');
  await page.getByLabel('Jitter (seconds)', { exact: true }).fill('4000');
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page.locator('#f-jitter-seconds-error').innerText()).resolves.toContain('must be at most 3600');
  await page.getByLabel('Jitter (seconds)', { exact: true }).fill('90');
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.waitForURL(/\/console\/jobs\/job_[^/]+\?done=job-created$/);
  const id = /\/console\/jobs\/(job_[^/?]+)/.exec(page.url())![1];
  expect((await f.get(`/v1/jobs/${id}`)).body).toMatchObject({ overlap_policy: 'skip', catch_up_policy: 'none', jitter_seconds: 90 });
  await expect(page.getByText('overlap skip, catch-up none, jitter 90 s').isVisible()).resolves.toBe(true);
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.waitForURL(new RegExp(`/console/jobs/${id}/edit`));
  await expect(page.getByLabel('Overlap policy', { exact: true }).inputValue()).resolves.toBe('skip');
  await page.getByLabel('Kind', { exact: true }).selectOption('one_time');
  await expect(page.getByLabel('Overlap policy', { exact: true }).isVisible()).resolves.toBe(false);
  await page.context().close();
});
