import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import type { Browser } from 'playwright-core';
import { recordPing } from '@cronsvc/core';
import { aMonitorBody, aRecurringJob, axeViolations, launchChromium, repoRoot } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

// Status pages through the API and the public page in Chromium at a phone's and a laptop's width,
// light and dark (docs/API.md, "Status pages"). Screenshots go to test-output/status-page.
const f = useWorkflowFixture();
const SCREENSHOTS = path.join(repoRoot, 'test-output', 'status-page');

let server: Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  server = f.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server.close(resolve));
});

const HOUR = 3_600_000;
/** The start of the UTC day `n` days before today. */
const daysAgo = (n: number) => Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR - n * 24 * HOUR;

/**
 * A page with a job that ran (once failing), a job that never ran, and a monitor with a history:
 * up from 20 days ago, down for most of the 12th day ago (a fail ping), up again since, and pinged
 * through the API now.
 */
async function aPage() {
  let calls = 0;
  f.target.handle((_req, res) => {
    calls += 1;
    res.statusCode = calls === 2 ? 500 : 200;
    res.end('secret body');
  });
  const api = await f.createJob(aRecurringJob({ name: 'Public API <checks>', request: { url: `${f.target.url}/private/path` }, retry_policy: { max_attempts: 1 } }));
  for (let i = 0; i < 3; i++) await f.until(await f.runNow(api.id), 'succeeded', 'failed');
  const idle = await f.createJob(aRecurringJob({ name: 'Nightly export', request: { url: `${f.target.url}/export` } }));
  const monitor = (await f.post('/v1/monitors', aMonitorBody({ name: 'Backups' })).expect(201)).body;
  const token = new URL(monitor.ping_url).pathname.split('/').pop()!;
  for (const [at, kind] of [[daysAgo(20) + 2 * HOUR, 'success'], [daysAgo(12) + 3 * HOUR, 'fail'], [daysAgo(11), 'success']] as const) {
    expect(await recordPing(f.ctx.runtime, token, new Date(at), { kind })).toBe(true);
  }
  await request(f.app).get(new URL(monitor.ping_url).pathname).expect(200);
  const created = await f.post('/v1/status-pages', { name: 'Acme status', job_ids: [api.id, idle.id], monitor_ids: [monitor.id] });
  expect(created.status).toBe(201);
  return { page: created.body, api, idle, monitor };
}

describe('status pages', () => {
  it('creates, lists, reads, changes and deletes a page; refuses ids not of the workspace', async () => {
    const { page, api } = await aPage();
    expect(page).toMatchObject({ id: expect.stringMatching(/^stp_/), name: 'Acme status', public_url: expect.stringMatching(/\/v1\/status\/sts_[0-9a-f]{64}$/) });
    expect((await f.get('/v1/status-pages')).body).toMatchObject({ total: expect.any(Number), data: expect.arrayContaining([expect.objectContaining({ id: page.id })]) });
    expect((await f.get(`/v1/status-pages/${page.id}`)).body).toEqual(page);
    const changed = await f.patch(`/v1/status-pages/${page.id}`, { name: 'Acme', job_ids: [api.id] });
    expect(changed.body).toMatchObject({ name: 'Acme', job_ids: [api.id], public_url: page.public_url });
    const bad = await f.post('/v1/status-pages', { name: 'x', job_ids: ['job_doesnotexist'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ path: 'job_ids[0]' })]);
    expect((await f.post('/v1/status-pages', { job_ids: [] })).status).toBe(400);
    await request(f.app).delete(`/v1/status-pages/${page.id}`).set(f.auth).expect(204);
    expect((await request(f.app).get(new URL(page.public_url).pathname)).status).toBe(404);
  });

  it('answers JSON with only names and states, 90 days each, to a client asking for JSON', async () => {
    const { page } = await aPage();
    const res = await request(f.app).get(new URL(page.public_url).pathname).set('Accept', 'application/json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['items', 'name', 'updated_at']);
    expect(res.body.items.map((i: { name: string; state: string }) => [i.name, i.state])).toEqual([
      ['Public API <checks>', 'passing'],
      ['Nightly export', 'new'],
      ['Backups', 'up'],
    ]);
    const [api, idle] = res.body.items;
    expect(api.days).toHaveLength(90);
    expect(api.days[89]).toEqual({ date: new Date().toISOString().slice(0, 10), state: 'failing' });
    expect(api.uptime_90d).toBeCloseTo(2 / 3);
    expect(idle.uptime_90d).toBeNull();
    // The monitor's bars from its state history: nothing before 20 days ago, down on the 12th day ago.
    const backups = res.body.items[2];
    expect(backups.days.map((d: { state: string }) => d.state)).toEqual([...Array(69).fill('none'), ...Array(8).fill('up'), 'down', ...Array(12).fill('up')]);
    const upMs = 193 * HOUR + (Date.parse(res.body.updated_at) - daysAgo(11));
    expect(backups.uptime_90d).toBeCloseTo(upMs / (upMs + 21 * HOUR), 6);
    const text = JSON.stringify(res.body);
    for (const leak of ['/private/path', 'secret body', 'job_', 'mon_', 'wsp_']) expect(text).not.toContain(leak);
  });

  it('serves a page without script that reads well and passes axe at 390 px and on a laptop, light and dark', async () => {
    const { page } = await aPage();
    const url = `${base}${new URL(page.public_url).pathname}`;
    const res = await request(f.app).get(new URL(page.public_url).pathname);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'; style-src 'sha256-/);
    expect(res.text).not.toMatch(/<script|\/private\/path|secret body|job_|mon_/);
    expect(res.text).toContain('Public API &lt;checks&gt;');
    for (const [name, viewport, scheme] of [
      ['phone-light', { width: 390, height: 844 }, 'light'],
      ['phone-dark', { width: 390, height: 844 }, 'dark'],
      ['laptop-light', { width: 1280, height: 800 }, 'light'],
    ] as const) {
      const context = await browser.newContext({ viewport, colorScheme: scheme, deviceScaleFactor: 1 });
      const tab = await context.newPage();
      const errors: string[] = [];
      tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await tab.goto(url);
      expect(await tab.locator('h1').textContent()).toBe('Acme status');
      expect(await tab.locator('svg.bars').count()).toBe(3);
      expect(await tab.locator('svg.bars').first().getAttribute('aria-label')).toMatch(/^Public API <checks>, last 90 days: 1 with data, 1 with failures$/);
      // Nothing wider than the screen.
      expect(await tab.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
      expect(await axeViolations(tab)).toEqual([]);
      // The inline style is allowed by its hash: no CSP violation is reported.
      expect(errors).toEqual([]);
      await tab.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
      await context.close();
    }
  });
});
