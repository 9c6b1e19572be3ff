import path from 'node:path';
import type { Page } from 'playwright-core';
import { aChannel, aCronJob, aHostLimit, aMonitor, approvalStep, aRecurringJob, aRule, aWorkflow, httpStep, pingTokenOf } from '@cronsvc/core/testing';
import { accessibilityProblems, DESKTOP, PHONE, SCREENSHOTS, scrollsSideways, useConsole } from './console-fixture.js';

// Every console page, filled with data, at a desktop's and a phone's width: it renders, nothing
// is wider than the screen, axe-core finds no serious or critical violation, and the keyboard
// basics hold. Screenshots land in test-output/console/ for a person to look at.
const f = useConsole();
const pages: [string, string][] = [];

beforeAll(async () => {
  f.target.handle((req, res) => {
    res.statusCode = req.url.startsWith('/fail') ? 503 : 200;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: req.url, note: 'a body long enough to wrap: '.repeat(8) }));
  });
  const long = 'a job with a rather long name that has to wrap somewhere on a phone';
  const job = await f.createJob(aCronJob({ name: long, schedule: { cron: '*/15 9-17 * * 1-5' }, request: { url: `${f.target.url}/ok/${'segment/'.repeat(12)}`, headers: { 'X-Trace': '{{uuid}}' } } }));
  const failing = await f.createJob(aRecurringJob({ name: 'failing', schedule: { every_n_minutes: 30 }, request: { url: `${f.target.url}/fail` }, retry_policy: { max_attempts: 2 } }));
  const flow = await f.createJob(aWorkflow([httpStep('build', `${f.target.url}/build`), approvalStep('review', 'Ship it?')], { name: 'release' }));
  const ok = await f.runNow(job.id);
  const bad = await f.runNow(failing.id);
  const waiting = await f.runNow(flow.id);
  await Promise.all([f.until(ok, 'succeeded'), f.until(bad, 'failed'), f.until(waiting, 'waiting')]);
  const channel = await aChannel(f.ctx.runtime, f.workspaceId, 'webhook', { url: `${f.target.url}/hook` }, 'ops hook');
  await aRule(f.ctx.runtime, f.workspaceId, { kind: 'job', id: failing.id }, channel.id, 'on_failure');
  await aMonitor(f.ctx.runtime, f.workspaceId, { name: 'backup heartbeat', expected_interval_sec: 86_400 });
  const nightly = await aMonitor(f.ctx.runtime, f.workspaceId, { name: 'nightly database dump', expected_interval_sec: undefined, schedule: { cron: '0 3 * * *' }, grace_sec: 1_800, max_duration_sec: 3_600 });
  await aRule(f.ctx.runtime, f.workspaceId, { kind: 'monitor', id: nightly.id }, channel.id, 'on_down');
  const pingPath = `/v1/ping/${pingTokenOf(f.ctx.runtime, nightly)}`;
  for (const [suffix, body] of [['/start', ''], ['/0', 'dumped 2.1 GiB\n'.repeat(40)], ['/start', ''], ['/fail', 'pg_dump: error: connection to server failed']]) await f.post(`${pingPath}${suffix}`, body);
  const secret = await f.post('/v1/secrets', { name: 'API_KEY', value: 'value' });
  const statusPage = await f.post('/v1/status-pages', { name: 'Acme status', job_ids: [job.id, failing.id], monitor_ids: [nightly.id] });
  // Host limits, a host cooling down (the one the waiting run called), and an attempt that waited for its host.
  await aHostLimit(f.ctx.runtime, f.workspaceId, 'api.example.com', { max_concurrency: 5, max_per_second: 20 });
  await aHostLimit(f.ctx.runtime, f.workspaceId, 'a-rather-long-host-name.internal.example.com', { max_per_second: 0.5 });
  await f.ctx.runtime.pool.query(`INSERT INTO host_limits (workspace_id, host, cooldown_until) VALUES ($1, '127.0.0.1', now() + interval '5 minutes')`, [f.workspaceId]);
  await f.ctx.runtime.pool.query('UPDATE attempts SET budget_wait_ms = 1200 WHERE execution_id = $1 AND number = 1', [bad]);
  pages.push(
    ['jobs', '/console/jobs'],
    ['job', `/console/jobs/${job.id}`],
    ['job-edit', `/console/jobs/${job.id}/edit`],
    ['workflow-job', `/console/jobs/${flow.id}`],
    ['workflow-edit', `/console/jobs/${flow.id}/edit`],
    ['new-job', '/console/jobs/new'],
    ['executions', '/console/executions'],
    ['execution', `/console/executions/${bad}`],
    ['execution-waiting', `/console/executions/${waiting}`],
    ['dead-letters', '/console/dead-letters'],
    ['monitors', '/console/monitors'],
    ['monitor', `/console/monitors/${nightly.id}`],
    ['channels', '/console/channels'],
    ['secrets', '/console/secrets'],
    ['secret', `/console/secrets/${secret.body.id}`],
    ['hosts', '/console/hosts'],
    ['status-pages', '/console/status-pages'],
    ['status-page', `/console/status-pages/${statusPage.body.id}`],
    ['not-found', '/console/jobs/job_missing'],
  );
});

/** How tall the page is, in CSS pixels. */
const pageHeight = (page: Page) => page.evaluate('document.documentElement.scrollHeight') as Promise<number>;

async function checkEveryPage(page: Page, width: string): Promise<Map<string, number>> {
  const problems: string[] = [];
  const heights = new Map<string, number>();
  for (const [name, url] of pages) {
    const res = await page.goto(`${f.base}${url}`);
    expect({ name, status: res?.status() }).toEqual({ name, status: name === 'not-found' ? 404 : 200 });
    await page.locator('h1').waitFor();
    problems.push(...(await accessibilityProblems(page)).map((p) => `${name}: ${p}`));
    if (await scrollsSideways(page)) problems.push(`${name}: wider than the ${width} window`);
    heights.set(name, await pageHeight(page));
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  expect(problems).toEqual([]);
  return heights;
}

it('renders every page at desktop width with no serious or critical axe-core violation', async () => {
  const heights = await checkEveryPage(await f.signedInPage(DESKTOP), 'desktop');
  // A job's page shows what matters in two screens at most (its fires, statistics, rules, badge);
  // its edit form, taller than all of that, is a page of its own.
  for (const name of ['job', 'workflow-job']) expect({ name, short: heights.get(name)! < 2 * DESKTOP.height }).toEqual({ name, short: true });
  expect(heights.get('job-edit')!).toBeGreaterThan(1.5 * heights.get('job')!);
});

it('fits every page on a 390 px wide phone, without sideways scrolling or axe-core violations', async () => {
  await checkEveryPage(await f.signedInPage(PHONE), 'phone');
});

it('has the sign-in page pass too, at both widths', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await (await f.browser.newContext({ viewport })).newPage();
    await page.goto(`${f.base}/console/sign-in`);
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(await scrollsSideways(page)).toBe(false);
    await page.getByLabel('API token').fill('csk_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, `sign-in-error-${viewport.width}.png`), fullPage: true });
  }
});

it('works from the keyboard: a skip link first, landmarks, the navigation names, a visible focus', async () => {
  const page = await f.signedInPage(DESKTOP);
  await page.keyboard.press('Tab');
  const focused = await page.evaluate('[document.activeElement.textContent, getComputedStyle(document.activeElement).outlineStyle]');
  expect(focused).toEqual(['Skip to content', 'solid']);
  await page.keyboard.press('Enter');
  expect(await page.evaluate('document.activeElement.id')).toBe('main');
  expect(await page.getByRole('banner').count()).toBe(1);
  expect(await page.getByRole('main').count()).toBe(1);
  const nav = page.getByRole('navigation', { name: 'Console' });
  expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Jobs', 'Executions', 'Dead letters', 'Monitors', 'Channels', 'Secrets', 'Host limits', 'Tokens', 'Audit log', 'Status pages', 'New job']);
  expect(await nav.getByRole('link', { name: 'Jobs' }).getAttribute('aria-current')).toBe('page');
});

it('shows the wait for a host budget on an attempt, a running execution\'s host cool-down, and the host limits', async () => {
  const page = await f.signedInPage(DESKTOP);
  await page.goto(`${f.base}${pages.find(([name]) => name === 'execution')![1]}`);
  expect(await page.getByText('waited 1.2 s for the host budget').count()).toBe(1);
  await page.goto(`${f.base}${pages.find(([name]) => name === 'execution-waiting')![1]}`);
  expect(await page.locator('dt', { hasText: 'Host cool-down' }).count()).toBe(1);
  await page.goto(`${f.base}/console/hosts`);
  const rows = page.locator('table.list tbody tr');
  expect(await rows.locator('td[data-label="Host"]').allInnerTexts()).toEqual(['127.0.0.1', 'a-rather-long-host-name.internal.example.com', 'api.example.com']);
  expect(await rows.nth(0).locator('td[data-label="Cool-down"]').innerText()).toMatch(/^until /);
});
