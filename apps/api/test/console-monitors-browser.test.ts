import path from 'node:path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { aChannel } from '@cronsvc/core/testing';
import { accessibilityProblems, SCREENSHOTS, useConsole } from './console-fixture.js';

// A monitor's own page in a real browser: creating one on a cron schedule, the lines to paste,
// the ping history with its bodies on click, editing its schedule and its rules. Every change is
// checked through the API afterwards.
const f = useConsole();
let page: Page;

beforeAll(async () => {
  page = await f.signedInPage();
});

const fact = (term: string) => page.locator(`dl.facts dt:text-is("${term}")`).locator('xpath=following-sibling::dd[1]');

it('creates a monitor on a cron schedule and shows its schedule, ping URL and the lines to paste', async () => {
  await page.goto(`${f.base}/console/monitors`);
  await page.getByLabel('Name', { exact: true }).fill('nightly dump');
  await page.getByLabel('Expected interval (seconds)').fill('600');
  await page.getByLabel('Cron schedule (UTC)').fill('0 3 * * *');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await expect(page.locator('#m-expected-interval-sec-error').innerText()).resolves.toMatch(/cannot be given with schedule/);
  await page.getByLabel('Expected interval (seconds)').fill('');
  await page.getByLabel('Grace (seconds)').fill('1800');
  await page.getByLabel('Max run duration (seconds)').fill('3600');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.waitForURL(/\/console\/monitors\/mon_[^/?]+\?done=monitor-created$/);
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const monitor = (await f.get(`/v1/monitors/${id}`)).body;
  expect(monitor).toMatchObject({ name: 'nightly dump', expected_interval_sec: null, schedule: { cron: '0 3 * * *' }, grace_sec: 1800, max_duration_sec: 3600, state: 'new' });

  await expect(fact('Expected').innerText()).resolves.toBe('0 3 * * * At 03:00 (UTC)');
  await expect(fact('Max run duration').innerText()).resolves.toBe('1 h');
  await expect(page.getByLabel('Ping URL of nightly dump').inputValue()).resolves.toBe(monitor.ping_url);
  const snippets = await page.locator('pre.preview').allInnerTexts();
  expect(snippets).toEqual([
    `0 3 * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 ${monitor.ping_url}`,
    `0 3 * * * curl -fsS -m 10 --retry 5 ${monitor.ping_url}/start ; /usr/local/bin/backup.sh ; curl -fsS -m 10 --retry 5 ${monitor.ping_url}/$?`,
    expect.stringContaining(`ExecStartPre=-/usr/bin/curl -fsS -m 10 --retry 5 ${monitor.ping_url}/start`),
  ]);
  expect(snippets[2]).toContain('OnCalendar=*-*-* 03:00:00 UTC');
});

it('shows the pings newest first with kind, time, duration and exit status, a body on click, and the next expected time', async () => {
  const monitor = (await f.post('/v1/monitors', { name: 'backup', expected_interval_sec: 86_400 })).body;
  const ping = (suffix: string, body?: string) => request(f.app).post(`${new URL(monitor.ping_url).pathname}${suffix}`).set('Content-Type', 'text/plain').send(body ?? '').expect(200);
  await ping('/start');
  await ping('/0', 'backup ok: 1,204 files');
  await ping('/start');
  await ping('/3', 'tar: /var/lib/db: file changed as we read it');
  await page.goto(`${f.base}/console/monitors/${monitor.id}`);
  await expect(page.locator('.page-head .badge').innerText()).resolves.toBe('down');
  const rows = page.locator('table.list tbody tr');
  await expect(rows.locator('td[data-label="Kind"]').allInnerTexts()).resolves.toEqual(['fail', 'start', 'success', 'start']);
  await expect(rows.locator('td[data-label="Exit status"]').allInnerTexts()).resolves.toEqual(['3', '', '0', '']);
  await expect(rows.nth(0).locator('td[data-label="Duration"]').innerText()).resolves.toMatch(/^\d+ ms$|^\d+\.\d s$/);
  await expect(rows.nth(0).locator('td[data-label="Received"]').innerText()).resolves.toMatch(/UTC \(just now\)$/);
  const body = rows.nth(0).locator('pre.preview');
  await expect(body.isVisible()).resolves.toBe(false);
  await rows.nth(0).getByText('Show body').click();
  await expect(body.innerText()).resolves.toBe('tar: /var/lib/db: file changed as we read it');
  await expect(fact('Last run took').innerText()).resolves.toMatch(/ms$|s$/);

  // Up again: the next expected ping is a day after the success.
  await ping('');
  await page.reload();
  const after = (await f.get(`/v1/monitors/${monitor.id}`)).body;
  await expect(fact('Next expected').locator('time').getAttribute('datetime')).resolves.toBe(after.next_expected_at);
  await expect(fact('Next expected').innerText()).resolves.toMatch(/\(in 24 h\)$/);
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'monitor.png'), fullPage: true });
});

it('edits the schedule, grace and max duration, says what is wrong, and adds and removes a rule', async () => {
  const monitor = (await f.post('/v1/monitors', { name: 'report', schedule: { cron: '*/30 * * * *' }, max_duration_sec: 60 })).body;
  const channel = await aChannel(f.ctx.runtime, f.workspaceId, 'webhook', { url: `${f.target.url}/hook` }, 'ops hook');
  await page.goto(`${f.base}/console/monitors/${monitor.id}`);
  await page.getByLabel('Cron schedule (UTC)').fill('0 25 * * *');
  await page.getByRole('button', { name: 'Save monitor' }).click();
  await expect(page.locator('#e-cron-error').innerText()).resolves.toMatch(/invalid cron expression/);
  await page.getByLabel('Cron schedule (UTC)').fill('');
  await page.getByLabel('Expected interval (seconds)').fill('900');
  await page.getByLabel('Grace (seconds)').fill('120');
  await page.getByLabel('Max run duration (seconds)').fill('');
  await page.getByRole('button', { name: 'Save monitor' }).click();
  await page.waitForURL(/done=monitor-saved$/);
  expect((await f.get(`/v1/monitors/${monitor.id}`)).body).toMatchObject({ expected_interval_sec: 900, schedule: null, grace_sec: 120, max_duration_sec: null });
  await expect(fact('Expected').innerText()).resolves.toBe('every 15 min');

  await page.getByLabel('Channel').selectOption(channel.id);
  await page.getByLabel('Event').selectOption('on_recovery');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.waitForURL(/done=rule-added$/);
  expect((await f.get(`/v1/monitors/${monitor.id}/notification-rules`)).body.data).toMatchObject([{ channel_id: channel.id, event: 'on_recovery' }]);
  await page.getByRole('button', { name: 'Remove' }).click();
  await page.waitForURL(new RegExp(`/console/monitors/${monitor.id}\\?done=rule-removed$`));
  expect((await f.get(`/v1/monitors/${monitor.id}/notification-rules`)).body.total).toBe(0);

  await page.getByRole('button', { name: 'Pause' }).click();
  await page.waitForURL(new RegExp(`/console/monitors/${monitor.id}\\?done=monitor-paused$`));
  expect((await f.get(`/v1/monitors/${monitor.id}`)).body.state).toBe('paused');
});
