import request from 'supertest';
import { permits, requiredScope, type Permission, type Scope } from '@cronsvc/core';
import { aChannel, aDelivery, aJob, aMonitor, aOneTimeExecution, aRule, aToken, type TestWorkspace } from '@cronsvc/core/testing';
import { ROUTE_PERMISSIONS } from '../src/routes/permissions.js';
import { listRoutes } from '../src/routes/route-table.js';
import { openApiPath } from '../src/openapi/document.js';
import { loadLazyRouters, useApiApp } from './api-app.js';
import { csrfOf } from './console-fixture.js';
import { openApi } from './openapi-document.js';

// Every route's permission is declared once (apps/api/src/routes/permissions.ts). These tests are
// generated from that table: a route without a line, or a line without a route, fails the first
// test by name; each route is then tried with a `read` and a `run` token (and a console session
// opened with each), and a refused one answers 403 and changes nothing.
const api = useApiApp();
const TABLE = Object.entries(ROUTE_PERMISSIONS).map(([key, permission]) => {
  const [method, path] = key.split(' ');
  return { key, method, path, permission };
});

it('has a line for every route of the app, and a route for every line', async () => {
  await loadLazyRouters(api.app);
  const routes = listRoutes(api.app).map((r) => `${r.method} ${r.path}`);
  const missing = routes.filter((r) => !(r in ROUTE_PERMISSIONS));
  const stale = Object.keys(ROUTE_PERMISSIONS).filter((key) => !routes.includes(key));
  expect({ 'routes without a line in apps/api/src/routes/permissions.ts': missing, 'lines without a route': stale }).toEqual({
    'routes without a line in apps/api/src/routes/permissions.ts': [],
    'lines without a route': [],
  });
});

it("gives every OpenAPI operation the table's scope as x-required-scope", () => {
  const spec = openApi();
  const byPath = new Map(TABLE.map((r) => [`${r.method} ${openApiPath(r.path)}`, requiredScope(r.permission)]));
  const wrong = spec.operations
    .map((o) => ({ op: `${o.method} ${o.path}`, documented: o.operation['x-required-scope'], table: byPath.get(`${o.method} ${o.path}`) }))
    .filter((o) => o.table === undefined || o.documented !== o.table);
  expect(wrong).toEqual([]);
});

interface Ids {
  [kind: string]: string;
}
let ws: TestWorkspace;
const ids: Ids = {};
const tokens: Partial<Record<Scope, string>> = {};

beforeAll(async () => {
  const rt = api.ctx.runtime;
  ws = await api.ctx.workspace('scopes');
  const job = await aJob(rt, ws.id);
  const { executionId } = await aOneTimeExecution(rt, ws.id);
  const channel = await aChannel(rt, ws.id, 'webhook', { url: 'https://hooks.example.com/x' });
  const rule = await aRule(rt, ws.id, { kind: 'job', id: job.id }, channel.id, 'on_failure');
  const monitor = await aMonitor(rt, ws.id);
  const delivery = await aDelivery(rt, ws.id);
  const secret = await rt.db.secret.findFirst({ where: { workspaceId: ws.id } });
  Object.assign(ids, { job: job.id, execution: executionId, channel: channel.id, rule: rule.id, monitor: monitor.id, delivery: delivery.id, secret: secret?.id ?? 'sec_none' });
  for (const scope of ['read', 'run'] as const) {
    const made = await aToken(rt, ws.id, { scope, name: `${scope} token` });
    tokens[scope] = made.api_token;
    ids[`token_${scope}`] = made.id;
  }
});

/** The path with ids of this workspace's objects of the kind its prefix names. */
function concrete(path: string, scope: Scope): string {
  const kind = /\/(jobs|executions|dlq|dead-letters|secrets|notification-channels|channels|monitors|notification-deliveries|tokens)\//.exec(path)?.[1];
  const idFor: Record<string, string> = {
    jobs: ids.job, executions: ids.execution, dlq: ids.execution, 'dead-letters': ids.execution, secrets: ids.secret, 'notification-channels': ids.channel,
    channels: ids.channel, monitors: ids.monitor, 'notification-deliveries': ids.delivery, tokens: ids[`token_${scope}`],
  };
  return path.replace(':rule_id', ids.rule).replace(':ruleId', ids.rule).replace(':id', kind ? idFor[kind] : 'none');
}

/** What a refused request must not have changed: the workspace's objects and their change times. */
async function state(): Promise<unknown> {
  const { rows } = await api.ctx.runtime.pool.query(
    `SELECT (SELECT json_agg(json_build_object('id', id, 'u', updated_at, 's', state) ORDER BY id) FROM jobs WHERE workspace_id = $1) AS jobs,
            (SELECT json_agg(json_build_object('id', id, 's', status, 'd', dead_lettered_at) ORDER BY id) FROM executions WHERE workspace_id = $1) AS executions,
            (SELECT json_agg(json_build_object('id', id, 'u', updated_at, 's', state) ORDER BY id) FROM monitors WHERE workspace_id = $1) AS monitors,
            (SELECT json_agg(id ORDER BY id) FROM api_tokens WHERE workspace_id = $1) AS tokens,
            (SELECT count(*) FROM audit_events WHERE workspace_id = $1) AS audit,
            (SELECT signing_key FROM workspaces WHERE id = $1) AS key`,
    [ws.id],
  );
  return rows[0];
}

const apiRoutes = TABLE.filter((r) => r.path.startsWith('/v1/') && ['read', 'run', 'write'].includes(r.permission));
const consoleRoutes = TABLE.filter((r) => r.path.startsWith('/console') && ['read', 'run', 'write'].includes(r.permission) && r.path !== '/console/sign-out');

describe.each(['read', 'run'] as const)('a %s token', (scope) => {
  // One console session per scope: sign-ins are rate limited.
  let agent: request.Agent;
  let csrf: string;
  beforeAll(async () => {
    agent = request.agent(api.app);
    const form = await agent.get('/console/sign-in');
    expect((await agent.post('/console/sign-in').type('form').send({ _csrf: csrfOf(form.text), token: tokens[scope] })).status).toBe(303);
    csrf = csrfOf((await agent.get('/console/jobs')).text);
  });

  it.each(apiRoutes.map((r) => [r.key, r.permission] as [string, Permission]))('%s (needs %s)', async (key, permission) => {
    const [method, path] = key.split(' ');
    const before = await state();
    const res = await request(api.app)[method.toLowerCase() as 'get'](concrete(path, scope)).set({ Authorization: `Bearer ${tokens[scope]}` }).send(method === 'GET' || method === 'DELETE' ? undefined : {});
    if (permits({ kind: 'token', scope }, permission)) {
      expect(res.status).not.toBe(403);
    } else {
      expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
      expect(await state()).toEqual(before);
    }
  });

  it.each(consoleRoutes.map((r) => [r.key, r.permission] as [string, Permission]))('the console: %s (needs %s)', async (key, permission) => {
    const [method, path] = key.split(' ');
    const before = await state();
    const res = method === 'GET' ? await agent.get(concrete(path, scope)) : await agent.post(concrete(path, scope)).type('form').send({ _csrf: csrf });
    if (permits({ kind: 'console', scope }, permission)) {
      expect(res.status).not.toBe(403);
    } else {
      expect(res.status).toBe(403);
      expect(res.text).toContain('needs scope');
      expect(await state()).toEqual(before);
    }
  });
});
