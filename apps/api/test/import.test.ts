import request from 'supertest';
import { createApp } from '../src/app.js';
import { IMPORT_NOTES } from '@cronsvc/core';
import type { TestContext } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

let ctx: TestContext;
let app: ReturnType<typeof createApp>;
let auth: { Authorization: string };

const api = useApiApp();
beforeAll(async () => {
  ({ ctx } = api);
  // Private targets refused, as in production, so the target guard is part of what is tested.
  app = createApp({ ...ctx.runtime, config: { ...ctx.config, allowPrivateTargets: false } });
  ({ auth } = await ctx.workspace());
});

const importCrontab = (body: unknown, token = auth) => request(app).post('/v1/jobs/import').set(token).send(body as object);

const crontab = [
  '# reports',
  '0 3 * * * https://example.com/nightly',
  '',
  '   # indented comment',
  '@hourly https://example.com/hourly',
  '*/15 * * * *',
  '61 * * * * https://example.com/bad-cron',
  '0 4 * * * https://',
  '0 5 * * * http://10.0.0.1/internal',
  '\t30 6 * * MON-FRI   https://example.com/weekdays',
].join('\n');

describe('POST /v1/jobs/import', () => {
  it('creates a GET cron job for every good line and reports each bad line with its number and text', async () => {
    const res = await importCrontab({ crontab, default_url: 'https://example.com/default' });
    expect(res.status).toBe(201);
    expect(res.body.created.map((j: { name: string }) => j.name)).toEqual([
      '0 3 * * * https://example.com/nightly',
      '@hourly https://example.com/hourly',
      '*/15 * * * * https://example.com/default',
      '30 6 * * MON-FRI https://example.com/weekdays',
    ]);
    expect(res.body.created[0]).toMatchObject({
      id: expect.stringMatching(/^job_/),
      kind: 'cron',
      state: 'active',
      schedule: { cron: '0 3 * * *' },
      request: { url: 'https://example.com/nightly', method: 'GET', timeout_seconds: 30 },
      retry_policy: { max_attempts: 3 },
    });
    expect(res.body.created.map((j: { schedule: { cron: string } }) => j.schedule.cron)).toEqual(['0 3 * * *', '@hourly', '*/15 * * * *', '30 6 * * MON-FRI']);
    expect(res.body.errors).toEqual([
      { line: 7, text: '61 * * * * https://example.com/bad-cron', message: expect.stringMatching(/^schedule\.cron: invalid cron expression/) },
      { line: 8, text: '0 4 * * * https://', message: expect.stringMatching(/^request\.url: /) },
      { line: 9, text: '0 5 * * * http://10.0.0.1/internal', message: expect.stringMatching(/^request\.url: must be a publicly reachable address/) },
    ]);
  });

  it('schedules each imported job at its next cron time', async () => {
    const before = new Date();
    const res = await importCrontab({ crontab: '0 3 * * * https://example.com/a\n@hourly https://example.com/b' });
    const [nightly, hourly] = res.body.created.map((j: { next_run_at: string }) => new Date(j.next_run_at));
    expect([nightly.getUTCHours(), nightly.getUTCMinutes()]).toEqual([3, 0]);
    expect(nightly.getTime() - before.getTime()).toBeGreaterThan(0);
    expect(nightly.getTime() - before.getTime()).toBeLessThanOrEqual(24 * 3600_000);
    expect(hourly.getUTCMinutes()).toBe(0);
    expect(hourly.getTime() - before.getTime()).toBeGreaterThan(0);
    expect(hourly.getTime() - before.getTime()).toBeLessThanOrEqual(3600_000);
  });

  it('stores the created jobs, so they are listed like any other job', async () => {
    const ws = (await ctx.workspace('import-list')).auth;
    const res = await importCrontab({ crontab: '@daily https://example.com/x\n0 0 30 2 * https://example.com/never' }, ws);
    const listed = await request(app).get('/v1/jobs').set(ws);
    expect(listed.body.total).toBe(1);
    // A list item is the job with its request summarized (docs/API.md, "Lists").
    const { url, method, timeout_seconds } = res.body.created[0].request;
    expect(listed.body.data[0]).toEqual({ ...res.body.created[0], request: { url, method, timeout_seconds } });
  });

  it('reports a schedule-only line as an error when no default_url is given', async () => {
    const res = await importCrontab({ crontab: '@daily https://example.com/ok\n*/5 * * * *' });
    expect(res.status).toBe(201);
    expect(res.body.created).toHaveLength(1);
    expect(res.body.errors).toEqual([{ line: 2, text: '*/5 * * * *', message: 'has no URL and no default_url was given' }]);
  });

  it('imports a real crontab: curl and wget lines call their URL with their method, headers and body; other commands call default_url', async () => {
    const res = await importCrontab({
      crontab: [
        'SHELL=/bin/sh',
        '*/15 * * * * curl -fsS -m 10 https://example.com/tick > /dev/null 2>&1',
        "0 2 * * * curl -s -X POST -H 'Content-Type: application/json' -d '{\"full\": true}' https://example.com/backup",
        '@hourly wget -qO- https://example.com/hourly',
        '30 4 * * * /usr/local/bin/rotate-logs.sh',
        '0 5 * * * curl -s http://10.0.0.1/internal',
      ].join('\n'),
      default_url: 'https://example.com/default',
    });
    expect(res.status).toBe(201);
    expect(res.body.created.map((j: { name: string; request: unknown }) => [j.name, j.request])).toEqual([
      ['*/15 * * * * https://example.com/tick', expect.objectContaining({ url: 'https://example.com/tick', method: 'GET', timeout_seconds: 10 })],
      ['0 2 * * * https://example.com/backup', expect.objectContaining({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"full": true}' })],
      ['@hourly https://example.com/hourly', expect.objectContaining({ url: 'https://example.com/hourly', method: 'GET' })],
      ['30 4 * * * https://example.com/default', expect.objectContaining({ url: 'https://example.com/default', method: 'GET' })],
    ]);
    expect(res.body.errors).toEqual([
      { line: 1, text: 'SHELL=/bin/sh', message: 'environment settings (NAME=value) are not supported' },
      { line: 6, text: '0 5 * * * curl -s http://10.0.0.1/internal', message: expect.stringMatching(/^request\.url: must be a publicly reachable address/) },
    ]);
  });

  it('answers 201 with nothing created when no line is good, and no notes', async () => {
    const res = await importCrontab({ crontab: '# only a comment\n99 * * * * https://example.com/' });
    expect(res.status).toBe(201);
    expect(res.body.created).toEqual([]);
    expect(res.body.errors.map((e: { line: number }) => e.line)).toEqual([2]);
    expect(res.body.notes).toEqual([]);
  });

  it('says in its notes that the times are UTC, whenever it created a job', async () => {
    const res = await importCrontab({ crontab: '0 3 * * * https://example.com/nightly' });
    expect(res.body.notes).toEqual([IMPORT_NOTES.utc]);
    expect(res.body.notes[0]).toMatch(/^Times are UTC: cron ran these lines in the local time/);
  });

  it('names a job without the query string and credentials of its URL, which it still calls, and says so', async () => {
    const res = await importCrontab({
      crontab: ['*/5 * * * * https://example.com/hook?token=abc123&x=1', '@hourly curl -fsS "https://deploy:hunter2@example.com:8443/run#frag"'].join('\n'),
    });
    expect(res.body.created.map((j: { name: string }) => j.name)).toEqual(['*/5 * * * * https://example.com/hook', '@hourly https://example.com:8443/run']);
    expect(res.body.created.map((j: { request: { url: string } }) => j.request.url)).toEqual(['https://example.com/hook?token=abc123&x=1', 'https://deploy:hunter2@example.com:8443/run#frag']);
    expect(res.body.notes).toEqual([IMPORT_NOTES.utc, IMPORT_NOTES.names]);
    const listed = await request(app).get('/v1/jobs').set(auth).query({ name: 'example.com/hook' });
    expect(JSON.stringify(listed.body.data.map((j: { name: string }) => j.name))).not.toMatch(/abc123|hunter2/);
  });

  it('shortens a name that a long URL would push past 200 characters, keeping the whole URL', async () => {
    const url = `https://example.com/${'p'.repeat(300)}`;
    const res = await importCrontab({ crontab: `@daily ${url}` });
    expect(res.body.errors).toEqual([]);
    expect(res.body.created[0].name).toHaveLength(200);
    expect(res.body.created[0].name.startsWith(`@daily ${url.slice(0, 100)}`)).toBe(true);
    expect(res.body.created[0].request.url).toBe(url);
  });

  it.each([
    ['an unknown field', { crontab: '@daily https://example.com/', shell: '/bin/sh' }, 'shell'],
    ['a missing crontab', { default_url: 'https://example.com/' }, 'crontab'],
    ['a crontab that is not a string', { crontab: ['@daily https://example.com/'] }, 'crontab'],
    ['a default_url that is not a URL', { crontab: '@daily', default_url: 'example' }, 'default_url'],
    ['more than 1000 lines', { crontab: `${'# x\n'.repeat(1000)}@daily https://example.com/` }, 'crontab'],
  ])('rejects %s with 400 and creates nothing', async (_what, body, path) => {
    const ws = (await ctx.workspace('import-bad')).auth;
    const res = await importCrontab(body, ws);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    expect((await request(app).get('/v1/jobs').set(ws)).body.total).toBe(0);
  });

  it('accepts exactly 1000 lines', async () => {
    const res = await importCrontab({ crontab: `${'# x\n'.repeat(999)}@daily https://example.com/last` });
    expect(res.status).toBe(201);
    expect(res.body.created.map((j: { name: string }) => j.name)).toEqual(['@daily https://example.com/last']);
  });
});
