import path from 'node:path';
import type { Page } from 'playwright-core';
import { aChannel, aCronJob, aRecurringJob, aWorkflow, httpStep, waitFor } from '@cronsvc/core/testing';
import { accessibilityProblems, PHONE, SCREENSHOTS, scrollsSideways, useConsole } from './console-fixture.js';

// Jobs in a real browser: New job for every kind, the API's messages beside the fields, the jobs
// list with its filters, and a job's page with every action; each checked through the API.
const f = useConsole();
let page: Page;

beforeAll(async () => {
  page = await f.signedInPage();
});

const apiJob = async (id: string) => (await f.get(`/v1/jobs/${id}`)).body;
const jobIdOf = (url: string) => /\/console\/jobs\/(job_[^/?]+)/.exec(url)?.[1] as string;

async function newJob(fields: Record<string, string>, selects: Record<string, string> = {}): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'New job' }).click();
  await page.getByRole('heading', { name: 'New job' }).waitFor();
  if (selects.Kind) await page.getByLabel('Kind', { exact: true }).selectOption(selects.Kind);
  for (const [label, value] of Object.entries(selects)) if (label !== 'Kind') await page.getByLabel(label, { exact: true }).selectOption(value);
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByRole('button', { name: 'Create job' }).click();
}

async function created(): Promise<Record<string, any>> {
  await page.waitForURL(/\/console\/jobs\/job_[^/]+\?done=job-created$/);
  await expect(page.getByRole('status').innerText()).resolves.toBe('Job created.');
  return apiJob(jobIdOf(page.url()));
}

it('creates a request job from New job with every field, as the API then shows it', async () => {
  await newJob(
    {
      Name: 'every field',
      'Every N minutes': '15',
      URL: `${f.target.url}/all?x={{uuid}}`,
      Headers: 'X-One: 1\nX-Two: two words',
      Body: '{"hello": "world"}',
      'Timeout (seconds)': '10',
      'Success statuses': '200, 201',
      'Success pattern': 'ok',
      'Failure pattern': 'error',
      'Pattern flags': 'i',
      'Response assertions': '{"status": [{"op": "eq", "value": 200}]}',
      'Response output template': '{"id": "$.id"}',
      'Max attempts': '5',
      'Retry on statuses': '500 503',
      'Max concurrent executions': '2',
      'On success callback': 'https://example.com/ok',
      'On failure callback': 'https://example.com/failed',
    },
    { Kind: 'recurring', Method: 'POST', 'Notification override': 'mute_all' },
  );
  const job = await created();
  expect(job).toMatchObject({
    name: 'every field',
    kind: 'recurring',
    state: 'active',
    schedule: { every_n_minutes: 15 },
    request: {
      url: `${f.target.url}/all?x={{uuid}}`,
      method: 'POST',
      headers: { 'X-One': '1', 'X-Two': 'two words' },
      body: { hello: 'world' },
      timeout_seconds: 10,
      success_statuses: [200, 201],
      response_matcher: { success_pattern: 'ok', failure_pattern: 'error', flags: 'i' },
      response_assertions: { status: [{ op: 'eq', value: 200 }] },
      response_output_template: { id: '$.id' },
    },
    retry_policy: { max_attempts: 5, retry_on_statuses: [500, 503] },
    max_concurrent_executions: 2,
    on_success_url: 'https://example.com/ok',
    on_failure_url: 'https://example.com/failed',
    notification_override: 'mute_all',
  });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'job-created.png'), fullPage: true });
});

it('creates cron, scheduled, one_time, workflow and webhook_trigger jobs, showing only each kind’s fields', async () => {
  await newJob({ Name: 'cron job', Cron: '30 9 * * 1-5', URL: `${f.target.url}/cron` }, { Kind: 'cron' });
  expect(await page.getByLabel('Every N minutes').isVisible()).toBe(false);
  expect(await created()).toMatchObject({ kind: 'cron', schedule: { cron: '30 9 * * 1-5' }, request: { url: `${f.target.url}/cron`, method: 'GET' } });

  // A time without a zone is UTC.
  await newJob({ Name: 'scheduled job', 'Run at': '2030-01-02 03:04', URL: `${f.target.url}/once` }, { Kind: 'scheduled' });
  const scheduled = await created();
  expect(new Date(scheduled.schedule.run_at).toISOString()).toBe('2030-01-02T03:04:00.000Z');
  expect(scheduled.next_run_at).toBe('2030-01-02T03:04:00.000Z');

  await newJob({ Name: 'one time job', URL: `${f.target.url}/now` }, { Kind: 'one_time' });
  const oneTime = await created();
  expect(oneTime.kind).toBe('one_time');
  await waitFor(async () => ((await f.get(`/v1/jobs/${oneTime.id}/executions`)).body.total === 1 ? true : undefined), { what: 'the one_time execution' });

  // A workflow's steps from the step list: a step of each type added, filled in, and the JSON left alone.
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'New job' }).click();
  await page.getByLabel('Kind', { exact: true }).selectOption('workflow');
  expect(await page.getByLabel('URL', { exact: true }).isVisible()).toBe(false);
  await page.getByLabel('Name', { exact: true }).fill('release');
  await page.getByLabel('Cron', { exact: true }).fill('0 0 1 1 *');
  await page.getByLabel('Max workflow duration (seconds)').fill('600');
  // No step yet: the list offers its Add buttons, and the JSON box is open beside it.
  expect(await page.getByLabel('Steps', { exact: true }).isVisible()).toBe(true);
  await page.locator('#steps-editor').screenshot({ path: path.join(SCREENSHOTS, 'new-workflow-steps.png') });
  await page.getByRole('button', { name: 'Add http step' }).click();
  await page.getByLabel('Step 1 ID').fill('build');
  await page.getByLabel('Step 1 URL').fill(`${f.target.url}/build`);
  await page.getByRole('button', { name: 'Add approval step' }).click();
  await page.getByLabel('Step 2 ID').fill('review');
  await page.getByLabel('Step 2 Message').fill('Ship it?');
  await page.getByRole('button', { name: 'Create job' }).click();
  expect(await created()).toMatchObject({ kind: 'workflow', schedule: { cron: '0 0 1 1 *' }, steps: [{ id: 'build', url: `${f.target.url}/build` }, { id: 'review', message: 'Ship it?' }], max_workflow_duration_seconds: 600, max_concurrent_executions: 1 });

  // Or as JSON, in the box labelled Steps.
  await newJob({ Name: 'on push', Steps: JSON.stringify([{ id: 'notify', type: 'http', url: `${f.target.url}/push` }]), 'Webhook secret': 's3cret' }, { Kind: 'webhook_trigger' });
  const trigger = await created();
  expect(trigger).toMatchObject({ kind: 'webhook_trigger', webhook_secret_configured: true });
  await expect(page.locator('dd.mono').innerText()).resolves.toBe(trigger.trigger_url);
});

it('shows the API’s own validation messages next to the fields, and keeps what was typed', async () => {
  const body = aRecurringJob({ name: 'bad', schedule: { every_n_minutes: 0 }, request: { url: 'not a url' }, retry_policy: { max_attempts: 11 } });
  const api = await f.post('/v1/jobs', body);
  expect(api.status).toBe(400);
  const message = (p: string) => api.body.error.details.find((d: { path: string }) => d.path === p).message;

  await newJob({ Name: 'bad', 'Every N minutes': '0', URL: 'not a url', 'Max attempts': '11' }, { Kind: 'recurring' });
  await page.getByRole('alert').waitFor();
  await expect(page.locator('#f-every-n-minutes-error').innerText()).resolves.toBe(message('schedule.every_n_minutes'));
  await expect(page.locator('#f-url-error').innerText()).resolves.toBe(message('request.url'));
  await expect(page.locator('#f-max-attempts-error').innerText()).resolves.toBe(message('retry_policy.max_attempts'));
  expect(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  expect(await page.getByLabel('URL', { exact: true }).getAttribute('aria-describedby')).toContain('f-url-error');
  await expect(page.getByLabel('URL', { exact: true }).inputValue()).resolves.toBe('not a url');
  await expect(page.getByRole('alert').innerText()).resolves.toContain('The job was not created.');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'new-job-errors.png'), fullPage: true });

  // Steps that are not JSON are caught before the API is asked.
  await newJob({ Name: 'bad steps', Cron: '0 0 1 1 *', Steps: '[{"id": ' }, { Kind: 'workflow' });
  await expect(page.locator('#f-steps-error').innerText()).resolves.toMatch(/^is not valid JSON/);
  expect((await f.get('/v1/jobs?name=bad')).body.total).toBe(0);
});

it('lists jobs with schedule in words, next run, last status and recent outcomes, filtered by name, state and kind', async () => {
  const often = await f.createJob(aRecurringJob({ name: 'zz often', schedule: { every_n_minutes: 5 }, request: { url: `${f.target.url}/often` } }));
  const quiet = await f.createJob(aCronJob({ name: 'zz quiet', schedule: { cron: '0 12 * * *' }, request: { url: `${f.target.url}/quiet` } }));
  await f.createJob(aWorkflow([httpStep('one', `${f.target.url}/one`)], { name: 'zz flow' }));
  for (const id of [await f.runNow(often.id), await f.runNow(often.id)]) await f.until(id, 'succeeded');
  expect((await f.post(`/v1/jobs/${quiet.id}/pause`)).status).toBe(200);

  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Jobs' }).click();
  await page.getByLabel('Name', { exact: true }).fill('zz ');
  await waitFor(async () => ((await page.locator('#jobs-results tbody tr').count()) === 3 ? true : undefined), { what: 'the filtered table' });
  const row = page.locator('tr', { has: page.getByRole('link', { name: 'zz often' }) });
  await expect(row.locator('td[data-label="Schedule"]').innerText()).resolves.toBe('Every 5 minutes');
  await expect(row.locator('td[data-label="Next run"] time').getAttribute('datetime')).resolves.toBe((await apiJob(often.id)).next_run_at);
  await expect(row.locator('td[data-label="Next run"]').innerText()).resolves.toMatch(/UTC \(in [45] min\)$/);
  await expect(row.locator('td[data-label="Last status"]').innerText()).resolves.toBe('succeeded');
  await expect(row.getByRole('img').getAttribute('aria-label')).resolves.toBe('Last 2: 2 succeeded');
  expect(await row.locator('.strip .o-succeeded').count()).toBe(2);
  expect(page.url()).toContain('name=zz');

  await page.getByLabel('State', { exact: true }).selectOption('paused');
  await waitFor(async () => ((await page.locator('#jobs-results tbody tr td[data-label="Name"]').allInnerTexts()).join() === 'zz quiet' ? true : undefined), { what: 'paused jobs only' });
  await expect(page.locator('#jobs-results tbody tr td[data-label="Schedule"]').innerText()).resolves.toBe('At 12:00 (UTC)');
  await page.getByLabel('State', { exact: true }).selectOption('');
  await page.getByLabel('Kind', { exact: true }).selectOption('workflow');
  const names = () => page.locator('#jobs-results tbody tr td[data-label="Name"]').allInnerTexts();
  await waitFor(async () => ((await names()).join() === 'zz flow' ? true : undefined), { what: 'workflow jobs only' });
  expect(page.url()).toMatch(/kind=workflow/);
});

it('shows a job’s schedule in words and next 5 fires, and runs, pauses, resumes, edits and deletes it', async () => {
  const job = await f.createJob(aCronJob({ name: 'six-hourly', schedule: { cron: '0 */6 * * *' }, request: { url: `${f.target.url}/six` } }));
  const channel = await aChannel(f.ctx.runtime, f.workspaceId, 'webhook', { url: `${f.target.url}/hook` }, 'ops hook');
  await page.goto(`${f.base}/console/jobs/${job.id}`);
  await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('six-hourly');
  await expect(page.locator('#schedule-heading + p').innerText()).resolves.toBe('On the hour, every 6 hours (UTC)');
  const fires = await page.locator('ol.fires time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')));
  const first = Date.parse(job.next_run_at);
  expect(fires).toEqual([0, 1, 2, 3, 4].map((i) => new Date(first + i * 6 * 3600_000).toISOString()));
  await page.screenshot({ path: path.join(SCREENSHOTS, 'job.png'), fullPage: true });

  await page.getByRole('button', { name: 'Run now' }).click();
  await page.waitForURL(/\/console\/executions\/exe_[^/]+\?done=run-queued$/);
  const runs = (await f.get(`/v1/jobs/${job.id}/executions`)).body;
  expect(runs.data).toHaveLength(1);
  expect(runs.data[0].source).toBe('manual');
  await f.until(runs.data[0].id, 'succeeded');

  await page.goto(`${f.base}/console/jobs/${job.id}`);
  await page.getByRole('link', { name: 'succeeded' }).click();
  await page.waitForURL(`${f.base}/console/executions/${runs.data[0].id}`);

  await page.goto(`${f.base}/console/jobs/${job.id}`);
  await page.getByRole('button', { name: 'Pause' }).click();
  await page.getByRole('button', { name: 'Resume' }).waitFor();
  expect((await apiJob(job.id)).state).toBe('paused');
  await expect(page.locator('#schedule-heading ~ p.muted').innerText()).resolves.toBe('Nothing is scheduled while the job is paused.');
  await page.getByRole('button', { name: 'Resume' }).click();
  await page.getByRole('button', { name: 'Pause' }).waitFor();
  expect((await apiJob(job.id)).state).toBe('active');

  // Editing is a page of its own, behind Edit.
  expect(await page.getByLabel('Name', { exact: true }).count()).toBe(0);
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.waitForURL(new RegExp(`/console/jobs/${job.id}/edit`));
  await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Edit six-hourly');
  await expect(page.getByLabel('URL', { exact: true }).inputValue()).resolves.toBe(`${f.target.url}/six`);
  await page.getByLabel('Name', { exact: true }).fill('six-hourly, renamed');
  await page.getByLabel('URL', { exact: true }).fill(`${f.target.url}/renamed`);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(`${f.base}/console/jobs/${job.id}?done=job-saved`);
  await expect(page.getByRole('status').innerText()).resolves.toBe('Changes saved.');
  expect(await apiJob(job.id)).toMatchObject({ name: 'six-hourly, renamed', request: { url: `${f.target.url}/renamed` }, schedule: { cron: '0 */6 * * *' } });

  // A refused save stays on the edit page, with the API's message by the field and what was typed.
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Cron', { exact: true }).fill('0 0 30 2 *');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.locator('#f-cron-error').innerText()).resolves.toMatch(/never fire/);
  await expect(page.getByLabel('Cron', { exact: true }).inputValue()).resolves.toBe('0 0 30 2 *');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'job-edit-errors.png'), fullPage: true });
  expect((await apiJob(job.id)).schedule.cron).toBe('0 */6 * * *');
  await page.getByRole('link', { name: 'Cancel' }).click();
  await page.waitForURL(`${f.base}/console/jobs/${job.id}`);

  await page.goto(`${f.base}/console/jobs/${job.id}`);
  await page.getByLabel('Channel', { exact: true }).selectOption(channel.id);
  await page.getByLabel('Event', { exact: true }).selectOption('on_failure');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.waitForURL(/\?done=rule-added$/);
  expect((await f.get(`/v1/jobs/${job.id}/notification-rules`)).body.data).toMatchObject([{ channel_id: channel.id, event: 'on_failure' }]);
  await page.getByRole('button', { name: 'Remove' }).click();
  await page.waitForURL(/\?done=rule-removed$/);
  expect((await f.get(`/v1/jobs/${job.id}/notification-rules`)).body.total).toBe(0);

  // Delete asks first: dismissed, nothing happens; accepted, the job is gone.
  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.getByRole('button', { name: 'Delete' }).click();
  expect((await f.get(`/v1/jobs/${job.id}`)).status).toBe(200);
  let asked = '';
  page.once('dialog', (dialog) => {
    asked = dialog.message();
    void dialog.accept();
  });
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL(`${f.base}/console/jobs?done=job-deleted`);
  expect(asked).toContain('Delete the job "six-hourly, renamed"');
  expect((await f.get(`/v1/jobs/${job.id}`)).status).toBe(404);
});

it('shows a job’s success rate, last 20 outcomes and a chart of durations and outcomes, for 24 h, 7 d and 30 d', async () => {
  let calls = 0;
  f.target.handle((_req, res) => {
    calls += 1;
    res.statusCode = calls === 3 ? 500 : 200;
    res.end('ok');
  });
  const job = await f.createJob(aRecurringJob({ name: 'zz measured', request: { url: `${f.target.url}/measured` }, retry_policy: { max_attempts: 1 } }));
  for (let i = 0; i < 4; i++) await f.until(await f.runNow(job.id), 'succeeded', 'failed');

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${f.base}/console/jobs/${job.id}`);
  const stats = page.getByRole('region', { name: 'Statistics' });
  await expect(stats.locator('dd').first().innerText()).resolves.toBe('75.0% (3 of 4 over the last 24 hours)');
  await expect(stats.getByRole('img', { name: /^Last 4: / }).getAttribute('aria-label')).resolves.toBe('Last 4: 3 succeeded, 1 failed');
  const chart = stats.getByRole('img', { name: /per hour over the last 24 hours: 4 executions, 1 failed/ });
  await expect(chart.evaluate((svg) => svg.tagName)).resolves.toBe('svg');
  await expect(chart.locator('rect.bad').count()).resolves.toBe(1);
  await stats.screenshot({ path: path.join(SCREENSHOTS, 'job-stats.png') });
  await stats.getByText('The figures, hour by hour').click();
  await expect(stats.locator('details tbody tr').count()).resolves.toBe(24);
  expect(await accessibilityProblems(page)).toEqual([]);

  await stats.getByRole('link', { name: '7 d' }).click();
  await page.waitForURL(/\?window=7d#stats-heading$/);
  await expect(stats.getByRole('link', { name: '7 d' }).getAttribute('aria-current')).resolves.toBe('true');
  await expect(stats.getByRole('img', { name: /per day over the last 7 days: 4 executions/ }).count()).resolves.toBe(1);
  await stats.getByText('The figures, day by day').click();
  await expect(stats.locator('details tbody tr').count()).resolves.toBe(7);
  await page.setViewportSize(PHONE);
  expect(await scrollsSideways(page)).toBe(false);
  expect(await accessibilityProblems(page)).toEqual([]);
  await stats.screenshot({ path: path.join(SCREENSHOTS, 'job-stats-phone.png') });

  await stats.getByRole('link', { name: '30 d' }).click();
  await page.waitForURL(/\?window=30d#stats-heading$/);
  await expect(stats.locator('details tbody tr').count()).resolves.toBe(30);
  // A window the page does not know falls back to 24 hours.
  await page.goto(`${f.base}/console/jobs/${job.id}?window=1y`);
  await expect(stats.getByRole('link', { name: '24 h' }).getAttribute('aria-current')).resolves.toBe('true');
  await page.setViewportSize({ width: 1280, height: 900 });
});

it('asks on a page of its own before deleting when the browser runs no script', async () => {
  const job = await f.createJob(aCronJob({ name: 'no script', request: { url: `${f.target.url}/x` } }));
  const context = await f.browser.newContext({ javaScriptEnabled: false });
  const plain = await context.newPage();
  await plain.goto(`${f.base}/console/sign-in`);
  await plain.getByLabel('API token').fill(f.token);
  await plain.getByRole('button', { name: 'Sign in' }).click();
  await plain.goto(`${f.base}/console/jobs/${job.id}`);
  await plain.getByRole('button', { name: 'Delete' }).click();
  await expect(plain.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Delete the job "no script" with its executions and rules?');
  expect((await f.get(`/v1/jobs/${job.id}`)).status).toBe(200);
  await plain.getByRole('button', { name: 'Delete' }).click();
  await plain.waitForURL(/done=job-deleted/);
  expect((await f.get(`/v1/jobs/${job.id}`)).status).toBe(404);
  await context.close();
});
