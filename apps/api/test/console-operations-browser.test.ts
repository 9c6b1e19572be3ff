import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { aChannel, aCronJob, aMonitorBody, approvalStep, aWorkflow, httpStep, waitFor } from '@cronsvc/core/testing';
import { SCREENSHOTS, useConsole } from './console-fixture.js';

// Executions, dead letters, monitors, channels and secrets in a real browser; every action is
// checked through the API afterwards.
const f = useConsole();
let page: Page;

const SECRET = 'tok-8d1e55c0a7';

beforeAll(async () => {
  page = await f.signedInPage();
});

beforeEach(() => {
  // /fail answers 500, /missing 404; anything else echoes the X-Key header it got.
  f.target.handle((req, res) => {
    res.statusCode = req.url.startsWith('/fail') ? 500 : req.url.startsWith('/missing') ? 404 : 200;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ echoed: req.headers['x-key'] ?? null }));
  });
});

/** Waits until the element's text matches (an update htmx makes in place). */
const textMatches = (locator: Locator, pattern: RegExp) =>
  waitFor(async () => (pattern.test(await locator.innerText()) ? true : undefined), { what: `text matching ${pattern}` });

const nav = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
const dlq = async () => (await f.get('/v1/dlq')).body;

/** A job whose runs fail at once (one attempt, 500), and `n` of its runs, finished and dead-lettered. */
async function deadLetters(name: string, n: number): Promise<{ jobId: string; ids: string[] }> {
  const job = await f.createJob(aCronJob({ name, request: { url: `${f.target.url}/fail` }, retry_policy: { max_attempts: 1 } }));
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await f.runNow(job.id));
  for (const id of ids) await f.until(id, 'failed');
  return { jobId: job.id, ids };
}

it('shows an execution’s attempts as a timeline with the masked preview, and replays it', async () => {
  expect((await f.post('/v1/secrets', { name: 'KEY', value: SECRET })).status).toBe(201);
  const job = await f.createJob(aCronJob({
    name: 'flaky',
    request: { url: `${f.target.url}/fail`, headers: { 'X-Key': '{{secret.KEY}}' } },
    retry_policy: { max_attempts: 2 },
  }));
  const id = await f.runNow(job.id);
  const done = await f.until(id, 'failed');

  await nav('Executions');
  await page.getByLabel('Status', { exact: true }).selectOption('failed');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/status=failed/);
  await page.locator('tr', { has: page.getByRole('link', { name: 'flaky' }) }).getByRole('link', { name: 'failed' }).click();
  await page.waitForURL(`${f.base}/console/executions/${id}`);

  const attempts = page.getByRole('list', { name: 'Attempts' }).locator(':scope > li');
  expect(await attempts.count()).toBe(2);
  for (const [i, a] of done.attempts.entries()) {
    await expect(attempts.nth(i).locator('strong').innerText()).resolves.toBe(`Attempt ${i + 1}`);
    const line = await attempts.nth(i).innerText();
    expect(line).toContain(`HTTP_ERROR · HTTP 500 · ${a.latencyMs} ms · HTTP_5XX`);
  }
  await expect(page.locator('#response-heading + p').innerText()).resolves.toBe('HTTP 500');
  await expect(page.locator('#response-heading ~ pre').innerText()).resolves.toBe('{"echoed":"[secret]"}');
  // The request sent, as recorded: the last attempt's beside the response, each attempt's in the timeline.
  const sent = page.locator('section[aria-labelledby="request-heading"]');
  await expect(sent.locator('.request-line').innerText()).resolves.toBe(`GET ${f.target.url}/fail`);
  // Headers by name (the record keeps no order), secrets masked, the service's own included.
  const headers = (await sent.locator('pre').first().innerText()).split('\n');
  expect(headers.map((h) => h.split(':')[0])).toEqual(['traceparent', 'webhook-id', 'webhook-signature', 'webhook-timestamp', 'X-Cron-Service-Execution-Id', 'X-Cron-Service-Signature', 'X-Key']);
  expect(headers).toContain('X-Key: [secret]');
  expect(headers).toContain(`X-Cron-Service-Execution-Id: ${id}`);
  await expect(sent.innerText()).resolves.toContain('No body.');
  await attempts.nth(0).getByText('Request sent').click();
  await expect(attempts.nth(0).locator('details pre').first().innerText()).resolves.toContain('X-Key: [secret]');
  expect(await page.content()).not.toContain(SECRET);
  await expect(page.locator('dl.facts').first().innerText()).resolves.toContain('HTTP_5XX');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'execution.png'), fullPage: true });

  await page.getByRole('button', { name: 'Replay' }).click();
  await page.waitForURL(/\/console\/executions\/exe_[^/]+\?done=replayed$/);
  const replay = await f.execution(/executions\/(exe_[^?]+)/.exec(page.url())![1]);
  expect(replay).toMatchObject({ source: 'replay', job_id: job.id });
  expect((await f.execution(id)).status).toBe('failed');
  // The page refreshes itself until the replay is finished.
  await page.locator('#execution .badge.s-failed').first().waitFor({ timeout: 20_000 });
});

it('shows a workflow’s steps, its wait for an approval and the link to review it', async () => {
  const job = await f.createJob(aWorkflow([httpStep('build', `${f.target.url}/build`), approvalStep('review', 'Ship <it>?')], { name: 'release' }));
  const id = await f.runNow(job.id);
  const waiting = await f.until(id, 'waiting');
  await page.goto(`${f.base}/console/executions/${id}`);
  const steps = page.locator('ol.steps > li');
  expect(await steps.count()).toBe(2);
  await expect(steps.nth(0).locator('h3').innerText()).resolves.toBe('build (http, step 1) succeeded');
  await expect(steps.nth(0).getByRole('list', { name: 'Attempts' }).innerText()).resolves.toContain('SUCCESS · HTTP 200');
  await expect(steps.nth(0).locator('.request-line').first().innerText()).resolves.toBe(`GET ${f.target.url}/build`);
  await expect(steps.nth(1).locator('h3').innerText()).resolves.toBe('review (approval, step 2) waiting');
  await expect(steps.nth(1).getByRole('link', { name: 'Review this approval' }).getAttribute('href')).resolves.toBe(waiting.waiting_payload.review_url);
  await expect(page.locator('dl.facts').first().innerText()).resolves.toContain('Waiting for\napproval, until');
  await expect(page.locator('#wait-heading + pre').innerText()).resolves.toContain('"message": "Ship <it>?"');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'execution-waiting.png'), fullPage: true });
});

it('replays and removes dead letters one by one, replays a job’s, and purges', async () => {
  const first = await deadLetters('dead one', 2);
  const second = await deadLetters('dead two', 2);
  await nav('Dead letters');
  const rowOf = (id: string) => page.locator('tr', { has: page.locator(`a[href="/console/executions/${id}"]`) });
  await rowOf(first.ids[0]).getByRole('button', { name: 'Replay' }).click();
  await page.waitForURL(/done=replayed$/);
  let items = (await dlq()).data.map((e: { id: string }) => e.id);
  expect(items).not.toContain(first.ids[0]);
  const replayed = (await f.get(`/v1/jobs/${first.jobId}/executions`)).body.data.find((e: { source: string }) => e.source === 'dlq_replay');
  expect(replayed.replay_of_id).toBe(first.ids[0]);

  await rowOf(first.ids[1]).getByRole('button', { name: 'Remove' }).click();
  await page.waitForURL(/done=dead-letter-removed$/);
  items = (await dlq()).data.map((e: { id: string }) => e.id);
  expect(items).not.toContain(first.ids[1]);
  expect((await f.execution(first.ids[1])).status).toBe('failed');

  // The replay of the first one fails too and lands here again; the second job's two are replayed together.
  await f.until(replayed.id, 'failed');
  await page.reload();
  await page.locator('tr', { has: page.getByRole('link', { name: 'dead two' }) }).getByRole('button', { name: 'Replay all' }).click();
  await page.waitForURL(/done=dead-letters-replayed&n=2$/);
  await expect(page.getByRole('status').innerText()).resolves.toBe('Replays queued: 2.');
  expect((await dlq()).data.map((e: { id: string }) => e.id)).not.toEqual(expect.arrayContaining(second.ids));
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dead-letters.png'), fullPage: true });

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Purge all' }).click();
  await page.waitForURL(/done=dead-letters-purged/);
  expect((await dlq()).total).toBe(0);
  await expect(page.getByText('No dead letters').isVisible()).resolves.toBe(true);
});

it('creates a monitor and shows its state, last ping and ping URL; pauses, resumes and deletes it', async () => {
  await nav('Monitors');
  await page.getByLabel('Name', { exact: true }).fill('nightly backup');
  await page.getByLabel('Expected interval (seconds)').fill('0');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await expect(page.locator('#m-expected-interval-sec-error').innerText()).resolves.toMatch(/at least 1/);
  await page.getByLabel('Expected interval (seconds)').fill('3600');
  await page.getByLabel('Grace (seconds)').fill('300');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.waitForURL(/done=monitor-created$/);
  const [monitor] = (await f.get('/v1/monitors')).body.data;
  expect(monitor).toMatchObject({ name: 'nightly backup', expected_interval_sec: 3600, grace_sec: 300, state: 'new' });
  // Created, the monitor's own page shows; its list is one link away.
  expect(page.url()).toContain(`/console/monitors/${monitor.id}?`);
  await nav('Monitors');

  const row = page.locator('tr', { hasText: 'nightly backup' });
  await expect(row.locator('td[data-label="State"]').innerText()).resolves.toBe('new');
  await expect(row.getByLabel('Ping URL of nightly backup').inputValue()).resolves.toBe(monitor.ping_url);
  await expect(row.locator('td[data-label="Expected"]').innerText()).resolves.toBe('every 1 h + 5 min grace');

  const pingPath = new URL(monitor.ping_url).pathname;
  expect((await f.get(pingPath)).status).toBe(200);
  await page.reload();
  await expect(row.locator('td[data-label="State"]').innerText()).resolves.toBe('up');
  await expect(row.locator('td[data-label="Last ping"]').innerText()).resolves.toMatch(/UTC \(just now\)$/);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'monitors.png'), fullPage: true });

  await row.getByRole('button', { name: 'Pause' }).click();
  await page.waitForURL(/done=monitor-paused$/);
  expect((await f.get(`/v1/monitors/${monitor.id}`)).body.state).toBe('paused');
  await row.getByRole('button', { name: 'Resume' }).click();
  await page.waitForURL(/done=monitor-resumed$/);
  expect((await f.get(`/v1/monitors/${monitor.id}`)).body.state).toBe('up');
  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL(/done=monitor-deleted$/);
  expect((await f.get(`/v1/monitors/${monitor.id}`)).status).toBe(404);
});

it('sends a channel’s test and shows its outcome in place, with the rules that send to it, and adds a monitor’s rule', async () => {
  const good = await aChannel(f.ctx.runtime, f.workspaceId, 'webhook', { url: `${f.target.url}/hook` }, 'good hook');
  const bad = await aChannel(f.ctx.runtime, f.workspaceId, 'webhook', { url: `${f.target.url}/missing` }, 'bad hook');
  const job = await f.createJob(aCronJob({ name: 'watched', request: { url: `${f.target.url}/x` } }));
  expect((await f.post(`/v1/jobs/${job.id}/notification-rules`, { channel_id: good.id, event: 'on_failure' })).status).toBe(201);

  await nav('Channels');
  const card = (name: string) => page.locator('section.card', { has: page.getByRole('heading', { name }) });
  await expect(card('good hook').locator('ul.plain').innerText()).resolves.toMatch(/on_failure of job watched/);
  const before = f.target.received.length;
  await card('good hook').getByRole('button', { name: 'Send test' }).click();
  await textMatches(card('good hook').getByRole('status'), /^sent The test message was delivered through webhook\.$/);
  expect(f.target.received.slice(before).map((r) => r.url)).toEqual(['/hook']);
  // htmx put the outcome in place: the page was not reloaded.
  expect(page.url()).toBe(`${f.base}/console/channels`);

  await card('bad hook').getByRole('button', { name: 'Send test' }).click();
  await textMatches(card('bad hook').getByRole('status'), /^failed .*\(HTTP 404\) This will not work until the channel is changed\.$/);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'channels.png'), fullPage: true });

  await card('good hook').getByRole('button', { name: 'Remove' }).click();
  await page.waitForURL(/\/console\/channels\?done=rule-removed$/);
  expect((await f.get(`/v1/jobs/${job.id}/notification-rules`)).body.total).toBe(0);

  // A monitor's rule is added here.
  const monitor = (await f.post('/v1/monitors', aMonitorBody({ name: 'heartbeat' }))).body;
  await page.reload();
  await page.getByLabel('Monitor', { exact: true }).selectOption(monitor.id);
  await page.getByLabel('Channel', { exact: true }).selectOption(bad.id);
  await page.getByLabel('Event', { exact: true }).selectOption('on_down');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.waitForURL(/done=rule-added$/);
  expect((await f.get(`/v1/monitors/${monitor.id}/notification-rules`)).body.data).toMatchObject([{ channel_id: bad.id, event: 'on_down' }]);
  await expect(card('bad hook').locator('ul.plain').innerText()).resolves.toMatch(/on_down of monitor heartbeat/);
});

it('creates a secret, sets a new value and deletes it, never showing a value', async () => {
  await nav('Secrets');
  await page.getByLabel('Name', { exact: true }).fill('DEPLOY_TOKEN');
  await page.getByLabel('Value', { exact: true }).fill('first-value-123');
  await page.getByRole('button', { name: 'Create secret' }).click();
  await page.waitForURL(/done=secret-created$/);
  const secret = (await f.get('/v1/secrets')).body.data.find((s: { name: string }) => s.name === 'DEPLOY_TOKEN');
  expect(secret).toBeDefined();
  expect(await page.content()).not.toContain('first-value-123');

  // A taken name: the API's message beside Name, and the value is not sent back.
  await page.getByLabel('Name', { exact: true }).fill('DEPLOY_TOKEN');
  await page.getByLabel('Value', { exact: true }).fill('second-value-456');
  await page.getByRole('button', { name: 'Create secret' }).click();
  await expect(page.locator('#s-name-error').innerText()).resolves.toMatch(/DEPLOY_TOKEN|exists|taken/);
  expect(await page.content()).not.toContain('second-value-456');

  // The new value is what the next request carries.
  const job = await f.createJob(aCronJob({ name: 'deploy', request: { url: `${f.target.url}/deploy`, headers: { 'X-Key': '{{secret.DEPLOY_TOKEN}}' } } }));
  await page.locator('tr', { hasText: 'DEPLOY_TOKEN' }).getByRole('button', { name: 'Set value' }).click();
  await page.getByLabel('New value').fill('rotated-value-789');
  await page.getByRole('button', { name: 'Set value' }).click();
  await page.waitForURL(/done=secret-updated$/);
  await f.until(await f.runNow(job.id), 'succeeded');
  expect(f.target.received.at(-1)?.headers['x-key']).toBe('rotated-value-789');
  expect(await page.content()).not.toContain('rotated-value-789');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'secrets.png'), fullPage: true });

  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('tr', { hasText: 'DEPLOY_TOKEN' }).getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL(/done=secret-deleted$/);
  expect((await f.get(`/v1/secrets/${secret.id}`)).status).toBe(404);
  await waitFor(async () => ((await page.locator('tr', { hasText: 'DEPLOY_TOKEN' }).count()) === 0 ? true : undefined), { what: 'the secret to leave the list' });
});
