import { spawn } from 'node:child_process';
import type { Execution, Fire, ImportResult, Job, JobStats, ListEnvelope } from '@cronsvc/contracts';
import { fireDueJobs } from '@cronsvc/core';
import { aCronJob, aJob, anOutageOf, repoRoot, waitFor } from '@cronsvc/core/testing';
import { startExecutor } from '@cronsvc/executor';
import { CLI, useCliApi } from './cli-harness.js';

// Requests to /slow wait until the test lets them go; /fail answers 500; anything else 200 with four lines.
let releaseSlow: () => void = () => {};
let slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));

const api = useCliApi({
  start: async (api) => {
    api.target.handle(async (req, res) => {
      if (req.url.startsWith('/slow')) await slowReleased;
      res.statusCode = req.url.startsWith('/fail') ? 500 : 200;
      res.end(res.statusCode === 500 ? 'boom' : 'line one\nline two\nline three\nline four');
    });
    const executor = startExecutor(api.ctx.runtime);
    return () => {
      releaseSlow();
      return executor.stop();
    };
  },
});

const ANSI = /\x1b\[/;
// For tests that run the CLI a dozen times one after another (each run starts a Node process).
const LONG_TEST_MS = 120_000;
const finished = (id: string) =>
  waitFor(async () => {
    const execution = await api.json<Execution>(['executions', 'get', id]);
    return ['succeeded', 'failed'].includes(execution.status) && execution;
  }, { what: `execution ${id} to finish` });

/** A job calling `path` on the target, made through core: it runs only when run-now'd. */
const jobTo = (path: string, fields: Record<string, unknown>) => aJob(api.ctx.runtime, api.workspaceId, { request: { url: `${api.target.url}${path}` }, ...fields });

describe('cronsvc jobs', () => {
  it('creates a job from flags, shows it, and lists it with filters, as JSON and as a plain table', async () => {
    const created = await api.json<Job>([
      'jobs', 'create', '--name', 'cli ping', '--every', '5', '--url', `${api.target.url}/ok`, '--method', 'post',
      '--header', 'X-A: 1', '--header', 'X-B:two:parts', '--body', '{"a":1}', '--timeout', '7', '--max-attempts', '2',
    ]);
    expect(created).toMatchObject({
      name: 'cli ping',
      kind: 'recurring',
      state: 'active',
      schedule: { every_n_minutes: 5 },
      request: { url: `${api.target.url}/ok`, method: 'POST', headers: { 'X-A': '1', 'X-B': 'two:parts' }, body: { a: 1 }, timeout_seconds: 7 },
      retry_policy: { max_attempts: 2 },
    });
    const [shown, filtered, others, table, details] = await Promise.all([
      api.json<Job>(['jobs', 'get', created.id]),
      api.json<ListEnvelope<Job>>(['jobs', 'list', '--kind', 'recurring', '--name', 'CLI PI', '--state', 'active']),
      api.json<ListEnvelope<Job>>(['jobs', 'list', '--kind', 'cron', '--name', 'cli ping']),
      api.cli(['jobs', 'list', '--name', 'cli ping']),
      api.cli(['jobs', 'get', created.id]),
    ]);
    expect(shown).toEqual(created);
    expect(filtered.data.map((j) => j.id)).toEqual([created.id]);
    expect(others.total).toBe(0);
    expect(table.code).toBe(0);
    const [header, row] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+KIND\s+SCHEDULE\s+STATE\s+NEXT RUN$/);
    expect(row).toMatch(new RegExp(`^${created.id}\\s+cli ping\\s+recurring\\s+every 5m\\s+active\\s+in \\d+[smh]$`));
    expect(table.stdout).not.toMatch(ANSI);
    expect(details.stdout).toContain(`POST ${api.target.url}/ok`);
    expect(details.stdout).toMatch(/Headers\s+X-A: 1, X-B: two:parts/);
  });

  it('creates from a JSON body on stdin, changes only the fields given, pauses, resumes and deletes', async () => {
    const body = aCronJob({ name: 'from stdin', schedule: { cron: '15 3 * * *' }, request: { url: `${api.target.url}/stdin`, headers: { 'X-Keep': 'yes' } } });
    const job = await api.json<Job>(['jobs', 'create', '--file', '-'], { input: JSON.stringify(body) });
    expect(job).toMatchObject({ name: 'from stdin', kind: 'cron', schedule: { cron: '15 3 * * *' } });

    const updated = await api.json<Job>(['jobs', 'update', job.id, '--every', '10', '--max-attempts', '4']);
    expect(updated).toMatchObject({ name: 'from stdin', kind: 'recurring', schedule: { every_n_minutes: 10 }, retry_policy: { max_attempts: 4 } });
    expect(updated.request).toMatchObject({ url: `${api.target.url}/stdin`, headers: { 'X-Keep': 'yes' } });

    const paused = await api.cli(['jobs', 'pause', job.id]);
    expect([paused.code, paused.stdout.trim()]).toEqual([0, `${job.id} paused`]);
    const again = await api.cli(['jobs', 'pause', job.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: invalid_state: .*\(HTTP 409\)/);
    expect((await api.json<Job>(['jobs', 'resume', job.id])).state).toBe('active');

    expect(await api.cli(['jobs', 'delete', job.id])).toMatchObject({ code: 0, stdout: `deleted ${job.id}\n` });
    const gone = await api.cli(['jobs', 'get', job.id]);
    expect([gone.code, gone.stdout]).toEqual([1, '']);
    expect(gone.stderr).toMatch(/^error: not_found: .*\(HTTP 404\)/);
  });

  it('creates a job with its fire policies and lists its fires, filtered by outcome, as JSON and as a table', async () => {
    const job = await api.json<Job>(['jobs', 'create', '--name', 'cli ledger', '--every', '1', '--url', `${api.target.url}/ok`, '--jitter', '0', '--overlap', 'skip', '--catch-up', 'none']);
    expect(job).toMatchObject({ overlap_policy: 'skip', catch_up_policy: 'none', jitter_seconds: 0 });
    const slots = await anOutageOf(api.ctx.runtime, job.id, 2);
    await fireDueJobs(api.ctx.runtime, { lookaheadMs: 0 });
    const [missed, none, table, bad] = await Promise.all([
      api.json<ListEnvelope<Fire>>(['jobs', 'fires', job.id, '--outcome', 'missed']),
      api.json<ListEnvelope<Fire>>(['jobs', 'fires', job.id, '--outcome', 'fired']),
      api.cli(['jobs', 'fires', job.id]),
      api.cli(['jobs', 'fires', job.id, '--outcome', 'gone']),
    ]);
    expect(missed.data.map((f) => [f.scheduled_for, f.outcome, f.execution_id])).toEqual([
      [slots[1].toISOString(), 'missed', null],
      [slots[0].toISOString(), 'missed', null],
    ]);
    expect(none.total).toBe(0);
    const [header, row] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^SCHEDULED FOR\s+OUTCOME\s+LAG\s+EXECUTION\s+REASON$/);
    expect(row).toMatch(new RegExp(`^${slots[1].toISOString()}\\s+missed$`));
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: validation_failed: .*outcome/) });
    const onTrigger = await api.cli(['jobs', 'update', job.id, '--once', '--jitter', '5']);
    expect(onTrigger).toMatchObject({ code: 1, stderr: expect.stringContaining('jitter_seconds') });
  });

  it("shows a job's statistics over a window, as JSON and as a summary with its busy buckets", async () => {
    const job = await jobTo('/ok', { name: 'cli stats' });
    await finished((await api.json<Execution>(['jobs', 'run', job.id])).id);
    const [day, month, text, bad] = await Promise.all([
      api.json<JobStats>(['jobs', 'stats', job.id]),
      api.json<JobStats>(['jobs', 'stats', job.id, '--window', '30d']),
      api.cli(['jobs', 'stats', job.id]),
      api.cli(['jobs', 'stats', job.id, '--window', '1y']),
    ]);
    expect(day).toMatchObject({ window: '24h', executions: 1, succeeded: 1, failed: 0, success_rate: 1 });
    expect(month.buckets).toHaveLength(30);
    expect(text.stdout).toMatch(/Success rate\s+100\.0%/);
    expect(text.stdout).toMatch(/^FROM\s+RUNS\s+FAILED\s+P50\s+P95$/m);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: validation_failed: .*window/) });
  });

  it('imports a crontab from stdin, reporting the lines it refused', async () => {
    const crontab = ['# nightly', `0 3 * * * ${api.target.url}/a`, '*/5 * * * *', 'MAILTO=ops', ''].join('\n');
    const result = await api.json<ImportResult>(['jobs', 'import', '-', '--default-url', `${api.target.url}/default`], { input: crontab });
    expect(result.created.map((j) => j.request?.url)).toEqual([`${api.target.url}/a`, `${api.target.url}/default`]);
    expect(result.errors).toEqual([expect.objectContaining({ line: 4, text: 'MAILTO=ops' })]);
    expect(result.notes[0]).toMatch(/^Times are UTC/);
    const human = await api.cli(['jobs', 'import', '-'], { input: `0 4 * * * ${api.target.url}/b?token=abc\nbad line\n` });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^1 job\\(s\\) created, 1 line\\(s\\) refused\\n  \\+ job_\\S+  0 4 \\* \\* \\* ${api.target.url}/b\\n`));
    expect(human.stdout).toContain('line 2: ');
    expect(human.stdout).toMatch(/\nnote: Times are UTC: .*\nnote: Job names leave out URL query strings/);
  });

  it('pages with --limit and --offset, and fetches every page with --all', async () => {
    await Promise.all(['paged a', 'paged b', 'paged c'].map((name) => jobTo('/paged', { name })));
    const [first, second, all, human] = await Promise.all([
      api.json<ListEnvelope<Job>>(['jobs', 'list', '--name', 'paged', '--limit', '2']),
      api.json<ListEnvelope<Job>>(['jobs', 'list', '--name', 'paged', '--limit', '2', '--offset', '2']),
      api.json<ListEnvelope<Job>>(['jobs', 'list', '--name', 'paged', '--all']),
      api.cli(['jobs', 'list', '--name', 'paged', '--limit', '2']),
    ]);
    expect([first.data.length, first.total, second.data.length]).toEqual([2, 3, 1]);
    expect(all.data.map((j) => j.id).sort()).toEqual([...first.data, ...second.data].map((j) => j.id).sort());
    expect(human.stdout).toContain('1-2 of 3; --offset 2 or --all for more');
  });

  it('exits 2 on usage errors and 1 on API and network errors, with the reason on stderr', async () => {
    const [missing, notANumber, unknown, twoSchedules, invalid, unreachable, noUrl, lateUrl] = await Promise.all([
      api.cli(['jobs', 'create', '--name', 'x']),
      api.cli(['jobs', 'list', '--limit', 'ten']),
      api.cli(['jobs', 'frobnicate']),
      api.cli(['jobs', 'create', '--name', 'x', '--every', '5', '--cron', '* * * * *', '--url', 'https://example.com/']),
      api.cli(['jobs', 'create', '--name', 'x', '--every', '0', '--url', 'https://example.com/']),
      api.cli(['jobs', 'list'], { env: { CRONSVC_URL: 'http://127.0.0.1:9' } }),
      api.cli(['jobs', 'list'], { env: { CRONSVC_URL: undefined } }),
      api.cli(['jobs', 'list', '--url', 'http://cron:3000']),
    ]);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('jobs create needs --url, one of --every, --cron, --at, --once') });
    expect(notANumber).toMatchObject({ code: 2, stderr: expect.stringContaining('not a whole number') });
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown command 'frobnicate'") });
    expect(twoSchedules).toMatchObject({ code: 2, stderr: expect.stringContaining('give one of --every, --cron, --at and --once') });
    expect(invalid.code).toBe(1);
    // The message names each field already, so the details are not repeated under it.
    expect(invalid.stderr).toMatch(/^error: validation_failed: schedule\.every_n_minutes: .* \(HTTP 400\)\n$/);
    expect(unreachable).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: cannot reach http:\/\/127\.0\.0\.1:9\/v1\/jobs/) });
    expect(noUrl).toMatchObject({ code: 2, stderr: expect.stringContaining('no API URL') });
    expect(lateUrl).toMatchObject({ code: 2, stderr: expect.stringContaining('it goes before the command, as in\n  cronsvc --url http://cron:3000 jobs list\n') });
  });
});

describe('cronsvc executions', () => {
  it('runs a job now and shows the execution with its attempts as a timeline', async () => {
    const job = await jobTo('/ok', { name: 'timeline' });
    const queued = await api.json<Execution>(['jobs', 'run', job.id]);
    expect(queued).toMatchObject({ job_id: job.id, source: 'manual', status: 'queued' });
    expect((await finished(queued.id)).status).toBe('succeeded');

    const shown = await api.cli(['executions', 'get', queued.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/Status\s+succeeded/);
    expect(shown.stdout).toMatch(/Attempts \(1\)\n {2}#1 {2}SUCCESS {2}200 {2}\d+ ms/);
    expect(shown.stdout).toContain('│ line one\n');
    expect(shown.stdout).toContain('│ line three\n');
    expect(shown.stdout).not.toContain('line four');
    expect(shown.stdout).toContain('… 1 more line(s)');

    const [byJob, byFilters, table] = await Promise.all([
      api.json<ListEnvelope<Execution>>(['executions', 'list', '--job', job.id]),
      api.json<ListEnvelope<Execution>>(['executions', 'list', '--status', 'succeeded', '--job-name', 'TIMELINE', '--sort', 'created_at', '--order', 'asc']),
      api.cli(['executions', 'list', '--job', job.id]),
    ]);
    expect(byJob.data.map((e) => e.id)).toEqual([queued.id]);
    expect(byFilters.data.map((e) => e.id)).toEqual([queued.id]);
    expect(table.stdout).toMatch(new RegExp(`\\n${queued.id}\\s+timeline\\s+succeeded\\s+manual\\s+1\\s`));
    // After the listings: a replay is a new execution of the job, which a listing made at the same time could show.
    const replay = await api.json<Execution>(['executions', 'replay', queued.id]);
    expect(replay).toMatchObject({ source: 'replay', replay_of_id: queued.id });
  });

  it('parks a queued execution and resumes it; a finished one is refused with invalid_state', async () => {
    slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));
    const job = await jobTo('/slow', { name: 'one at a time' });
    await api.json(['jobs', 'update', job.id, '--file', '-'], { input: '{"max_concurrent_executions": 1}' });
    const first = await api.json<Execution>(['jobs', 'run', job.id]);
    await waitFor(() => api.target.received.some((r) => r.url === '/slow'), { what: 'the first run to reach the target' });
    const second = await api.json<Execution>(['jobs', 'run', job.id]);

    const parked = await api.cli(['executions', 'park', second.id]);
    expect([parked.code, parked.stdout]).toEqual([0, `${second.id} waiting (manual)\n`]);
    expect((await api.json<Execution>(['executions', 'resume', second.id])).status).toBe('queued');
    releaseSlow();
    await Promise.all([finished(first.id), finished(second.id)]);
    const refused = await api.cli(['executions', 'park', first.id]);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: invalid_state: /) });
    expect(await api.cli(['executions', 'get', 'exe_nope'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
  }, LONG_TEST_MS);

  it('--watch redraws every 2 seconds until Ctrl-C', async () => {
    const child = spawn(process.execPath, [CLI, 'executions', 'list', '--watch', '--limit', '1'], {
      cwd: repoRoot,
      env: { ...process.env, NODE_OPTIONS: '', CRONSVC_URL: api.url, CRONSVC_TOKEN: api.token, XDG_CONFIG_HOME: api.configHome },
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => (stdout.match(/^Every 2s, /gm) ?? []).length >= 2, { what: 'two drawings', timeoutMs: 20_000 });
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/ID\s+JOB\s+STATUS\s+SOURCE\s+ATTEMPTS/);
  });
});

describe('cronsvc dlq', () => {
  it('lists, counts, replays, removes and purges dead-lettered executions', async () => {
    const job = await jobTo('/fail', { name: 'always fails', retry_policy: { max_attempts: 1 } });
    const runs = await Promise.all([1, 2, 3, 4].map(() => api.json<Execution>(['jobs', 'run', job.id])));
    await Promise.all(runs.map((run) => finished(run.id)));

    const [list, stats, statsText] = await Promise.all([
      api.json<ListEnvelope<Execution>>(['dlq', 'list', '--job-name', 'always fails']),
      api.json<{ total: number; by_job: { job_id: string; count: number }[] }>(['dlq', 'stats']),
      api.cli(['dlq', 'stats']),
    ]);
    expect(list.data.map((e) => e.id).sort()).toEqual(runs.map((r) => r.id).sort());
    expect(stats.by_job).toContainEqual(expect.objectContaining({ job_id: job.id, count: 4 }));
    expect(statsText.stdout).toMatch(/HTTP_5XX\s+\d+/);

    const [a, b, c] = runs;
    const replayed = await api.json<Execution>(['dlq', 'replay', a!.id]);
    expect(replayed).toMatchObject({ source: 'dlq_replay', replay_of_id: a!.id });
    expect(await api.cli(['dlq', 'delete', b!.id])).toMatchObject({ code: 0, stdout: `removed ${b!.id} from the DLQ\n` });
    expect(await api.cli(['dlq', 'delete', b!.id])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
    const batch = await api.json<{ replayed: { id: string; execution_id: string }[] }>(['dlq', 'replay', '--job', job.id]);
    expect(batch.replayed.map((r) => r.id)).toContain(c!.id);
    // The replays fail too and are dead-lettered in turn: --all replays those it finds, once.
    await Promise.all([replayed.id, ...batch.replayed.map((r) => r.execution_id)].map(finished));
    const before = await api.json<ListEnvelope<Execution>>(['dlq', 'list', '--all']);
    expect(before.total).toBeGreaterThanOrEqual(batch.replayed.length);
    const again = await api.json<{ replayed: { id: string }[]; failed: unknown[] }>(['dlq', 'replay', '--all']);
    expect(again.replayed.map((r) => r.id).sort()).toEqual(before.data.map((e) => e.id).sort());
    expect(await api.cli(['dlq', 'replay', '--job', 'job_unknown'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
    const purged = await api.json<{ purged: number }>(['dlq', 'purge', '--job', job.id]);
    expect(purged.purged).toBeGreaterThanOrEqual(1);
    expect((await api.json<ListEnvelope<Execution>>(['dlq', 'list', '--job-name', 'always fails'])).total).toBe(0);
    expect(await api.cli(['dlq', 'replay'])).toMatchObject({ code: 2, stderr: expect.stringContaining('give one of: an id, --job ID, --all') });
  }, LONG_TEST_MS);
});
