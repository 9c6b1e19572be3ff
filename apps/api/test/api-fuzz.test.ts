import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { ADMIN_TOKEN, capturingLogger, createTestContext, startTargetServer } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { asSent, CONSOLE_FORMS, ConsoleSession, consoleRequestsFor } from './fuzz/console-forms.js';
import { FuzzFixtures } from './fuzz/fuzz-fixtures.js';
import { describeRequest, requestsFor, resolvePath, resourcesIn, send, type Answer, type FuzzRequest } from './fuzz/fuzz-requests.js';
import { ROUTE_BODIES } from './fuzz/route-bodies.js';
import { changesBetween, snapshotState, tablesOf, type StateSnapshot } from './fuzz/state-snapshot.js';
import { loadLazyRouters } from './api-app.js';
import { apiRoutesOf, routesOf } from './routes.js';

// Every route under /v1 and /admin/v1, read from the app's routing table, gets generated requests
// (docs/TESTING.md, "Fuzzing"): bodies near its schema and far from it, hostile path ids and
// query strings, wrong credentials and content types. Whatever comes, the answer is below 500,
// a refusal is the error envelope, and a refused request changes nothing at all.

/** A whole number from the environment, or `fallback` when unset; anything else stops the run. */
function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (name === 'FUZZ_SEED' && raw === 'random') return (Date.now() ^ (Math.random() * 2 ** 31)) | 0;
  if (!/^-?\d+$/.test(raw)) throw new Error(`${name}: must be a whole number${name === 'FUZZ_SEED' ? ' or random' : ''}, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

// Runs per route (docs/TESTING.md, "Fuzzing"): a quick pass by default, `npm run test:fuzz` a long one.
const RUNS = setting('FUZZ_RUNS', 15);
// Fixed unless asked otherwise, so a run is the same run on every machine; a failure prints it.
const SEED = setting('FUZZ_SEED', 20_240_601);
const REPLAY_PATH = process.env.FUZZ_PATH;

// Public calls and console sign-ins are not counted: thousands of them a minute from one address
// would otherwise be 429s.
const ctx = await createTestContext({ PUBLIC_RATE_LIMIT_PER_MINUTE: '0', CONSOLE_SIGN_IN_PER_MINUTE: '0' });
afterAll(() => ctx.close());
// What the app logs while answering a request goes into the failure's message: a 500's cause.
const log = capturingLogger();
const app = createApp({ ...ctx.runtime, logger: log.logger });
// The console's router loads on first use: load it now, so its forms are listed.
await loadLazyRouters(app);
const ROUTES = apiRoutesOf(app);
// The console's forms: every POST under /console but sign-in, which takes no session.
const CONSOLE_ROUTES = routesOf(app).filter(([method, pattern]) => method === 'POST' && pattern.startsWith('/console/') && pattern !== '/console/sign-in');

let fixtures: FuzzFixtures;
let session: ConsoleSession;
let tokens: { api: string; admin: string };
let tables: string[];
let closeTarget: () => Promise<void>;
// One listening server for every request: the fuzzer's client talks to it as any client would.
const server = app.listen(0, '127.0.0.1');
afterAll(() => new Promise((resolve) => server.close(resolve)));

beforeAll(async () => {
  const target = await startTargetServer();
  closeTarget = target.close;
  const own = await ctx.workspace('fuzzed');
  const other = await ctx.workspace('other');
  tokens = { api: own.token, admin: ADMIN_TOKEN };
  fixtures = new FuzzFixtures(ctx.runtime, { own: own.id, other: other.id }, target.url);
  session = new ConsoleSession(app, own.token);
  tables = await tablesOf(ctx.runtime);
});
afterAll(() => closeTarget?.());

// FUZZ_STATS=1 prints how each route answered, by status: whether the requests get past its checks.
const STATS: Record<string, Record<number, number>> = {};
afterAll(() => {
  if (process.env.FUZZ_STATS) console.log(Object.entries(STATS).map(([route, answers]) => `${route} ${JSON.stringify(answers)}`).join('\n'));
});

const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** What is wrong with an answer to a fuzzed request, given the state before and after it. */
function problemsOf(req: FuzzRequest, path: string, namesOthers: boolean, res: Answer, changes: string[]): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`answered ${res.status}`);
  if (res.status >= 400 && res.status < 500) {
    const error = (res.body as { error?: Record<string, unknown> } | undefined)?.error;
    const envelope =
      res.type === 'application/json' &&
      Object.keys(res.body as object).join() === 'error' &&
      typeof error?.code === 'string' &&
      SNAKE_CASE.test(error.code) &&
      typeof error.message === 'string' &&
      error.message !== '' &&
      Object.keys(error).every((k) => ['code', 'message', 'details'].includes(k)) &&
      (error.details === undefined || (Array.isArray(error.details) && error.details.every((d) => typeof (d as { path?: unknown }).path === 'string')));
    if (!envelope) problems.push(`answered ${res.status} without the error envelope`);
    if (res.status === 405 && !res.headers.allow) problems.push('answered 405 without Allow');
    if (changes.length > 0) problems.push(`answered ${res.status} but changed: ${changes.join('; ')}`);
  }
  const tokenRoute = path.startsWith('/v1/') && !/^\/v1\/(triggers|resume|approvals|ping)\//i.test(path);
  // OPTIONS is answered from the routing table alone (200 with Allow), whatever the id names.
  if (tokenRoute && namesOthers && req.credential === 'route' && req.method !== 'OPTIONS' && res.status < 300) problems.push(`reached another workspace's object (${res.status})`);
  return problems;
}

describe('fuzzing every route', () => {
  it('has bodies for every route, and none for a route that is gone', () => {
    const routes = ROUTES.map(([method, pattern]) => `${method} ${pattern}`);
    expect(routes.filter((r) => !(r in ROUTE_BODIES))).toEqual([]);
    expect(Object.keys(ROUTE_BODIES).filter((r) => !routes.includes(r))).toEqual([]);
    expect(routes.length).toBeGreaterThan(50);
  });

  it('sees in its snapshot a row added, a row changed and a job queued, and nothing when nothing happens', async () => {
    await fixtures.refresh();
    const [job] = fixtures.ids().own.job!;
    const auth = { Authorization: `Bearer ${tokens.api}` };
    const before = await snapshotState(ctx.runtime, tables);
    expect(changesBetween(before, await snapshotState(ctx.runtime, tables))).toEqual([]);
    await request(app).patch(`/v1/jobs/${job}`).set(auth).send({ name: 'renamed by the self-check' }).expect(200);
    const renamed = await snapshotState(ctx.runtime, tables);
    // A longer name is more stored bytes: the workspace's total changes with the job.
    expect(changesBetween(before, renamed)).toEqual([
      expect.stringMatching(/^audit_events: (\d+) rows -> \d+ rows$/),
      expect.stringMatching(/^jobs: (\d+) rows -> \1 rows, changed$/),
      expect.stringMatching(/^stored_bytes_totals: (\d+) rows -> \1 rows, changed$/),
    ]);
    await request(app).post(`/v1/jobs/${job}/run-now`).set(auth).expect(202);
    const changes = changesBetween(renamed, await snapshotState(ctx.runtime, tables));
    expect(changes).toEqual(expect.arrayContaining([expect.stringMatching(/^executions: (\d+) rows -> \d+ rows/), expect.stringMatching(/^queue executions: /)]));
  });

  it.each(ROUTES)(
    '%s %s: no 5xx, every refusal in the error envelope and changing nothing',
    async (method, pattern) => {
      const body = ROUTE_BODIES[`${method} ${pattern}`];
      if (!body) throw new Error(`no bodies for ${method} ${pattern} in route-bodies.ts`);
      await fixtures.refresh();
      const named = resourcesIn(pattern);
      const answers: Record<number, number> = (STATS[`${method} ${pattern}`] = {});
      // Requests are the only writers while this runs, so the state after one is the state before the next.
      let state: StateSnapshot = await snapshotState(ctx.runtime, tables);
      const property = fc.asyncProperty(requestsFor(method, pattern, fixtures, body), async (req) => {
        if (named.length > 0 && (await fixtures.refresh(named))) state = await snapshotState(ctx.runtime, tables);
        const { path, namesOthers } = resolvePath(req.path, fixtures);
        log.lines.length = 0;
        const res = await send((server.address() as AddressInfo).port, req, path, tokens);
        const after = await snapshotState(ctx.runtime, tables);
        const changes = changesBetween(state, after);
        state = after;
        const problems = problemsOf(req, path, namesOthers, res, changes);
        answers[res.status] = (answers[res.status] ?? 0) + 1;
        if (problems.length > 0) {
          throw new Error(`${problems.join('\n')}\n${describeRequest(req, path)}\nanswer: ${res.status} ${res.text.slice(0, 600)}\nlogged: ${log.lines.join('').slice(0, 1500)}`);
        }
      });
      await fc.assert(property, { numRuns: RUNS, seed: SEED, ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}) });
    },
    Math.max(60_000, RUNS * 1_000),
  );
});

describe('fuzzing every console form', () => {
  const sessionAlive = async (idHash: string) => (await ctx.runtime.pool.query('SELECT 1 FROM console_sessions WHERE id_hash = $1', [idHash])).rowCount === 1;

  it('has forms for every POST of the console, and none for a route that is gone', () => {
    const routes = CONSOLE_ROUTES.map(([method, pattern]) => `${method} ${pattern}`);
    expect(routes.filter((r) => !(r in CONSOLE_FORMS))).toEqual([]);
    expect(Object.keys(CONSOLE_FORMS).filter((r) => !routes.includes(r))).toEqual([]);
    expect(routes.length).toBeGreaterThan(20);
  });

  it.each(CONSOLE_ROUTES)(
    '%s %s: no 5xx, and a refused form changes nothing',
    async (method, pattern) => {
      await fixtures.refresh();
      await session.ensure(sessionAlive);
      const named = resourcesIn(pattern);
      const answers: Record<number, number> = (STATS[`${method} ${pattern}`] = {});
      let state: StateSnapshot = await snapshotState(ctx.runtime, tables);
      const forms = CONSOLE_FORMS[`${method} ${pattern}`](fixtures.ids());
      const property = fc.asyncProperty(consoleRequestsFor(pattern, fixtures, forms), async (form) => {
        // Putting back what the last form used up (sign-out ends the session) changes the state before this one.
        const refreshed = (named.length > 0 && (await fixtures.refresh(named))) || (await session.ensure(sessionAlive));
        if (refreshed) state = await snapshotState(ctx.runtime, tables);
        const req = asSent(form, session);
        const { path, namesOthers } = resolvePath(req.path, fixtures);
        log.lines.length = 0;
        const res = await send((server.address() as AddressInfo).port, req, path, tokens);
        const after = await snapshotState(ctx.runtime, tables);
        const changes = changesBetween(state, after);
        state = after;
        const problems: string[] = [];
        if (res.status >= 500) problems.push(`answered ${res.status}`);
        if (res.status >= 400 && changes.length > 0) problems.push(`answered ${res.status} but changed: ${changes.join('; ')}`);
        if (namesOthers && res.status < 400) problems.push(`reached another workspace's object (${res.status})`);
        answers[res.status] = (answers[res.status] ?? 0) + 1;
        if (problems.length > 0) {
          throw new Error(`${problems.join('\n')}\n${describeRequest(req, path)}\nanswer: ${res.status} ${res.text.slice(0, 600)}\nlogged: ${log.lines.join('').slice(0, 1500)}`);
        }
      });
      await fc.assert(property, { numRuns: RUNS, seed: SEED, ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}) });
    },
    Math.max(60_000, RUNS * 1_000),
  );
});
