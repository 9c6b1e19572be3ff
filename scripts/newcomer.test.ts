import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@cronsvc/core';
import { alive, createTestDatabase, deleteRedisKeys, descendantPids, redisUrl, repoRoot, runCommand, spawnProcess, uniqueName, waitFor, type ChildApp, type TestDatabase } from '@cronsvc/core/testing';

// A newcomer's first hour, as a test: the README's quick start run as written (its own shell
// blocks, through bash, against `npm run dev` and the README's local target), then one job of
// each kind from the README and from docs/JOBS.md, each checked by what it did. Ports are the
// only thing changed, so that tests running at once do not collide.

const SLOW = 180_000;

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const jobsReference = readFileSync(path.join(repoRoot, 'docs/JOBS.md'), 'utf8');

/** The shell block after each `<!-- newcomer: name -->` marker of the README. */
const blocks = new Map([...readme.matchAll(/<!-- newcomer: ([\w ]+) -->\n```sh\n([\s\S]*?)\n```/g)].map((m) => [m[1], m[2]]));

// Variables the README's blocks set and later blocks use, carried from one block to the next.
const CARRIED = ['BASE', 'TOKEN', 'JOB', 'HOOK', 'CRONSVC_URL', 'CRONSVC_TOKEN'];

let apiPort: number;
let targetPort: number;
let database: TestDatabase;
let prefix: string;
let service: ChildApp;
let target: ChildApp;
let state: string;

const withPorts = (text: string) => text.replaceAll('localhost:3000', `localhost:${apiPort}`).replaceAll('localhost:8080', `localhost:${targetPort}`).replaceAll('listen(8080)', `listen(${targetPort})`);

/** Runs a README block with bash, as the next command of one terminal session. */
function run(block: string) {
  const script = `set -eo pipefail\n[ -f '${state}' ] && source '${state}'\n${withPorts(block)}\ndeclare -p ${CARRIED.join(' ')} > '${state}' 2>/dev/null || true\n`;
  return runCommand('bash', ['-c', script], { cwd: repoRoot, env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' } });
}

async function ok(name: string): Promise<string> {
  const block = blocks.get(name);
  if (!block) throw new Error(`the README has no block marked "newcomer: ${name}"`);
  const result = await run(block);
  if (result.code !== 0) throw new Error(`README block "${name}" exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

const api = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
  const res = await fetch(url.startsWith('http') ? url : `http://127.0.0.1:${apiPort}${url}`, {
    method,
    headers: { Authorization: 'Bearer dev-token', 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
};

interface Execution {
  id: string;
  status: string;
  waiting_reason: string | null;
  waiting_payload: Record<string, string> | null;
  attempts: Record<string, unknown>[];
  step_executions?: Record<string, unknown>[];
}

const execution = (id: string) => api<Execution>('GET', `/v1/executions/${id}`);
const until = (id: string, done: (e: Execution) => boolean, what: string) =>
  waitFor(async () => {
    const e = await execution(id);
    return done(e) ? e : undefined;
  }, { timeoutMs: 30_000, what });
const received = () => target.output().split('\n').filter(Boolean);

/** The field names of a table of docs/JOBS.md marked `<!-- reference: name -->`. */
function referenceFields(name: string): string[] {
  const start = jobsReference.indexOf(`<!-- reference: ${name} -->\n`);
  const rows = jobsReference.slice(start).split('\n').slice(3);
  const fields: string[] = [];
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    fields.push(...[...row.split('|')[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]));
  }
  return fields;
}

beforeAll(async () => {
  [apiPort, targetPort] = [await freePort(), await freePort()];
  database = await createTestDatabase();
  prefix = uniqueName('newcomer');
  state = path.join(mkdtempSync(path.join(tmpdir(), 'cronsvc-newcomer-')), 'session.sh');
});

afterAll(async () => {
  await service?.kill('SIGKILL').catch(() => undefined);
  await target?.kill('SIGKILL').catch(() => undefined);
  await database?.drop();
  await deleteRedisKeys(prefix);
  rmSync(path.dirname(state), { recursive: true, force: true });
}, SLOW);

it('starts with npm run dev, which prints a curl that works when pasted', async () => {
  expect(blocks.get('service')).toBe('npm ci\nnpm run dev');
  // npm ci has run already; the service gets a database and Redis prefix of the test's own.
  service = spawnProcess('npm', ['run', 'dev'], {
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    PORT: String(apiPort),
    BOOTSTRAP_API_TOKEN: '',
    ALLOW_PRIVATE_TARGETS: '',
    NODE_OPTIONS: '',
  });
  const pasted = await waitFor(() => /^ {2}(curl .*)$/m.exec(service.output())?.[1], { timeoutMs: 120_000, what: () => `the curl of npm run dev (output: ${service.output()})` });
  // The well-known token is reachable from this machine only; the addresses follow the curl line
  // once the API has answered the supervisor.
  await waitFor(() => service.output().includes(`(listening on 127.0.0.1:${apiPort})`), { what: () => `the addresses (output: ${service.output()})` });
  const job = JSON.parse((await run(pasted)).stdout) as { id: string; kind: string };
  expect(job).toMatchObject({ id: expect.stringMatching(/^job_/), kind: 'one_time' });
  const { data } = await api<{ data: Execution[] }>('GET', `/v1/jobs/${job.id}/executions`);
  expect((await until(data[0].id, (e) => e.status === 'succeeded', 'the pasted job to succeed')).attempts[0]).toMatchObject({ status: 'SUCCESS', statusCode: 200 });
}, SLOW);

it('runs the quick start against the local target, as written', async () => {
  target = spawnProcess('bash', ['-c', withPorts(blocks.get('target')!)], {});
  await waitFor(async () => fetch(`http://127.0.0.1:${targetPort}/`).then((r) => r.ok, () => false), { what: 'the local target' });

  const created = await ok('client');
  expect(JSON.parse(created)).toMatchObject({ id: expect.stringMatching(/^exe_/), status: 'queued' });
  await waitFor(() => received().includes('POST /hello'), { what: () => `POST /hello at the target (it printed: ${target.output()})` });

  const shown = await waitFor(async () => {
    const out = JSON.parse(await ok('check')) as { status: string; attempts: { status: string; statusCode: number }[] };
    return out.status === 'succeeded' ? out : undefined;
  }, { what: 'the check block to show the execution succeeded' });
  expect(shown.attempts).toEqual([expect.objectContaining({ number: 1, status: 'SUCCESS', statusCode: 200 })]);

  const cli = await ok('cli');
  expect(cli).toMatch(/hello\s+recurring\s+every 5m\s+active/);
  expect(cli).toMatch(/succeeded\s+manual\s+1/);
}, SLOW);

it('creates one job of each kind with the README examples, through curl and the CLI', async () => {
  for (const kind of ['recurring', 'cron', 'scheduled', 'one_time', 'workflow', 'webhook_trigger']) {
    const out = await ok(`kind ${kind}`);
    expect([kind, out]).toEqual([kind, expect.stringMatching(/job_|"received": ?true/)]);
  }
  const { data } = await api<{ data: { kind: string; name: string }[] }>('GET', '/v1/jobs?limit=100');
  const count = (kind: string) => data.filter((j) => j.kind === kind).length;
  // Request kinds twice (curl and the CLI), step-driven kinds once, the quick start's two jobs besides.
  expect(['recurring', 'cron', 'scheduled', 'one_time', 'workflow', 'webhook_trigger'].map(count)).toEqual([3, 2, 2, 3, 1, 1]);
  await waitFor(() => received().filter((line) => line === 'POST /welcome').length === 2 && received().includes('POST /deploy'), {
    what: () => `the one_time jobs and the trigger to reach the target (it printed: ${target.output()})`,
  });
}, SLOW);

it('creates and runs one job of each kind from the job reference, whose records have the fields it lists', async () => {
  await api('POST', '/v1/secrets', { name: 'EXPORT_KEY', value: 'k-123' });
  const examples = [...jobsReference.matchAll(/<!-- example: (\w+) -->\n```json\n([\s\S]*?)\n```/g)];
  const jobs: Record<string, { id: string; kind: string } & Record<string, unknown>> = {};
  for (const [, kind, text] of examples) {
    const body = JSON.parse(text.replaceAll('https://example.com', `http://localhost:${targetPort}/ref`)) as Record<string, unknown>;
    jobs[kind] = await api('POST', '/v1/jobs', body);
  }
  const runNow = (kind: string) => api<Execution>('POST', `/v1/jobs/${jobs[kind].id}/run-now`);

  const exports = await until((await runNow('cron')).id, (e) => e.status === 'failed' || e.status === 'succeeded', 'the cron example to finish');
  // The target answers "ok", not the JSON the example's assertion asks for: a failed check, not retried.
  expect(exports).toMatchObject({ status: 'failed', attempts: [expect.objectContaining({ errorClass: 'RESPONSE_MISMATCH' })] });
  for (const kind of ['recurring', 'scheduled']) expect((await until((await runNow(kind)).id, (e) => e.status === 'succeeded', `the ${kind} example`)).status).toBe('succeeded');

  const shipping = await until((await runNow('workflow')).id, (e) => e.waiting_reason === 'webhook', 'the workflow to wait for the warehouse');
  await fetch(shipping.waiting_payload!.resume_url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"parcel": "P-1"}' });
  const shipped = await until(shipping.id, (e) => e.status === 'succeeded', 'the workflow to finish');
  const deploy = await until((await runNow('webhook_trigger')).id, (e) => e.waiting_reason === 'approval', 'the trigger job to ask for approval');
  await fetch(deploy.waiting_payload!.approve_url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  await until(deploy.id, (e) => e.status === 'succeeded', 'the approved deploy to run');
  await waitFor(() => received().includes('POST /ref/orders//shipped') && received().includes('POST /ref/deploy'), { what: () => `the steps at the target (${target.output()})` });

  const fields = new Set([...referenceFields('execution'), ...referenceFields('attempt'), ...referenceFields('step_execution')]);
  const shownExecution = await execution(exports.id);
  expect(Object.keys(shownExecution).filter((k) => !referenceFields('execution').includes(k))).toEqual([]);
  expect(Object.keys(shownExecution.attempts[0]).filter((k) => !referenceFields('attempt').includes(k))).toEqual([]);
  const steps = shipped.step_executions!;
  expect(steps.flatMap(Object.keys).filter((k) => !referenceFields('step_execution').includes(k))).toEqual([]);
  expect(fields.size).toBeGreaterThan(40);
  const jobFields = [...referenceFields('job'), ...referenceFields('job output')];
  for (const job of Object.values(jobs)) expect(Object.keys(job).filter((k) => !jobFields.includes(k))).toEqual([]);
}, SLOW);

it('stops every process on Ctrl-C', async () => {
  const pids = await descendantPids(service.child.pid!);
  expect(pids.length).toBeGreaterThanOrEqual(5);
  // Ctrl-C in a terminal signals the whole foreground process group.
  process.kill(-service.child.pid!, 'SIGINT');
  // npm returns what the service exits with, once its last process is gone, and says so last.
  expect(await service.exited).toBe(0);
  await waitFor(() => pids.every((pid) => !alive(pid)), { timeoutMs: 5_000, what: 'every process of npm run dev to exit' });
  expect(service.output()).toMatch(/\[supervisor\] stopping/);
  expect(service.output().trimEnd().split('\n').at(-1)).toMatch(/\[supervisor\] stopped \(exit 0\)$/);
}, SLOW);
