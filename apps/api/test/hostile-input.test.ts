import request from 'supertest';
import { executionRow } from '@cronsvc/core';
import { aCronJob } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

// Input an attacker with an ordinary API token might send: it gets a 400, never a 500, and
// lists stay cheap and literal.

let auth: { Authorization: string };
let workspaceId: string;

const api = useApiApp();

beforeAll(async () => {
  ({ id: workspaceId, auth } = await api.ctx.workspace());
});

const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('deeply nested JSON', () => {
  it.each([
    ['POST', '/v1/jobs'],
    ['POST', '/v1/secrets'],
    ['POST', '/v1/dlq/purge'],
  ])('answers 400, not 500, to a body nested 200,000 levels deep on %s %s', async (method, path) => {
    const body = '['.repeat(200_000) + ']'.repeat(200_000);
    const res = await request(api.app)[method === 'POST' ? 'post' : 'patch'](path).set(auth).set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', details: [{ path: '(body)', message: expect.stringMatching(/nested deeper than 100 levels/) }] });
  });

  it('refuses a job body or an assertion value nested deeper than 64 levels, at its path', async () => {
    const deepBody = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ request: { method: 'POST', body: nested(65) } }));
    expect(deepBody.status).toBe(400);
    expect(deepBody.body.error.details).toEqual([{ path: 'request.body', message: 'must not be nested deeper than 64 levels' }]);
    const deepValue = await request(api.app)
      .post('/v1/jobs')
      .set(auth)
      .send(aCronJob({ request: { response_assertions: { json: [{ path: '$.a', op: 'eq', value: nested(65) }] } } }));
    expect(deepValue.status).toBe(400);
    expect(deepValue.body.error.details).toEqual([{ path: 'request.response_assertions.json[0].value', message: 'must not be nested deeper than 64 levels' }]);
    const atLimit = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ request: { method: 'POST', body: nested(64) } }));
    expect(atLimit.status).toBe(201);
    expect(atLimit.body.request.body).toEqual(nested(64));
  });
});

describe('very wide JSON', () => {
  it.each([['/v1/secrets'], ['/v1/monitors'], ['/v1/dlq/purge']])('answers 400, not 500, to a body that is an array of 500,000 items on POST %s', async (path) => {
    const res = await request(api.app).post(path).set(auth).send(new Array(500_000).fill(0));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', details: [{ path: '(body)', message: 'must be an object' }] });
  });
});

describe('unpaired UTF-16 surrogates', () => {
  it('refuses one in a job, a context value or a channel with a 400 at its path, which PostgreSQL would refuse with a 500', async () => {
    const job = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ request: { method: 'POST', body: { text: 'a\ud800' } } }));
    expect([job.status, job.body.error?.details]).toEqual([400, [{ path: 'request.body.text', message: 'must not contain an unpaired UTF-16 surrogate (such as \\ud800), which is not Unicode text' }]]);
    const created = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob());
    const context = await request(api.app).patch(`/v1/jobs/${created.body.id}/context`).set(auth).send({ key: '\udc00' });
    expect([context.status, context.body.error?.details?.[0]?.path]).toEqual([400, 'key']);
    const channel = await request(api.app).post('/v1/notification-channels').set(auth).send({ name: 'c', type: 'chat_a', config: { url: 'https://example.com/hook', mention_text: '\ud800' } });
    expect([channel.status, channel.body.error?.details?.[0]?.path]).toEqual([400, 'config.mention_text']);
    const emoji = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ request: { method: 'POST', body: { text: '💥' } } }));
    expect(emoji.status).toBe(201);
  });
});

describe('JSONPath caps at save', () => {
  it('refuses a path over 500 characters and a filter with more than 20 operators, with their paths', async () => {
    const plus = `$[?(${Array.from({ length: 21 }, () => '@.a').join(' + ')} > 0)]`;
    const res = await request(api.app)
      .post('/v1/jobs')
      .set(auth)
      .send(aCronJob({ request: { response_output_template: { sum: plus }, response_assertions: { json: [{ path: `$.${'a'.repeat(500)}`, op: 'exists' }] } } }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    const messages = res.body.error.details.map((d: { path: string; message: string }) => `${d.path}: ${d.message}`).join('\n');
    expect(messages).toMatch(/request\.response_output_template: .*more than 20 operators/);
    expect(messages).toMatch(/request\.response_assertions\.json\[0\]\.path: .*(500|longer)/);
  });
});

describe('execution lists', () => {
  let ids: Record<string, string>;

  beforeAll(async () => {
    ids = {};
    for (const name of ['100% uptime', 'a_b', 'Plain', 'back\\slash']) {
      const created = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ name }));
      const row = executionRow({ workspaceId, jobId: created.body.id, jobName: name, source: 'manual', scheduledFor: new Date() });
      const exe = await api.ctx.runtime.db.execution.create({ data: { ...row, status: 'failed', attemptCount: 1, deadLetteredAt: new Date() } });
      await api.ctx.runtime.db.attempt.create({
        data: {
          executionId: exe.id, number: 1, status: 'HTTP_ERROR', statusCode: 500, latencyMs: 3, bodyPreview: 'p'.repeat(64 * 1024), startedAt: new Date(),
          request: { method: 'POST', url: 'https://example.com/', headers: {}, body: 'r'.repeat(64 * 1024), bodyTruncated: true },
        },
      });
      ids[name] = exe.id;
    }
  });

  it.each([
    ['%', ['100% uptime']],
    ['_', ['a_b']],
    ['0%', ['100% uptime']],
    ['PLAIN', ['Plain']],
    ['\\', ['back\\slash']],
    ['L', ['Plain', 'back\\slash']],
  ])('matches job_name=%s as a literal, case-insensitive substring', async (filter, names) => {
    for (const path of ['/v1/executions', '/v1/dlq']) {
      const res = await request(api.app).get(path).query({ job_name: filter }).set(auth);
      expect(res.status).toBe(200);
      expect(res.body.data.map((e: { job_name: string }) => e.job_name).sort()).toEqual([...names].sort());
      expect(res.body.total).toBe(names.length);
    }
  });

  it('leaves bodyPreview and request out of the attempts of list items; GET /v1/executions/:id has them', async () => {
    const id = ids.Plain;
    const jobId = (await api.ctx.runtime.db.execution.findUniqueOrThrow({ where: { id } })).jobId;
    for (const path of ['/v1/executions', '/v1/dlq', `/v1/jobs/${jobId}/executions`]) {
      const res = await request(api.app).get(path).set(auth);
      const item = res.body.data.find((e: { id: string }) => e.id === id);
      expect(item.attempts).toEqual([expect.objectContaining({ number: 1, statusCode: 500 })]);
      expect(item.attempts[0]).not.toHaveProperty('bodyPreview');
      expect(item.attempts[0]).not.toHaveProperty('request');
      expect(res.text.length).toBeLessThan(64 * 1024);
    }
    const one = await request(api.app).get(`/v1/executions/${id}`).set(auth);
    expect(one.body.attempts[0].bodyPreview).toHaveLength(64 * 1024);
    expect(one.body.attempts[0].request).toMatchObject({ method: 'POST', bodyTruncated: true });
  });
});

describe('bodies the parser cannot read', () => {
  it('answers a Content-Encoding body that does not inflate with 400 invalid_json, on JSON and public routes alike', async () => {
    const notGzip = Buffer.from('not gzip');
    const json = await request(api.app).post('/v1/jobs').set(auth).type('application/json').set('Content-Encoding', 'gzip').send(notGzip);
    const ping = await request(api.app).post('/v1/ping/unknown-token').set('Content-Encoding', 'deflate').send(notGzip);
    const list = await request(api.app).get('/v1/jobs').set(auth).type('application/json').set('Content-Encoding', 'gzip').send(Buffer.alloc(0));
    expect([json.status, json.body]).toEqual([400, { error: { code: 'invalid_json', message: 'request body is not valid gzip data (Content-Encoding: gzip)' } }]);
    expect([ping.status, ping.body.error?.code]).toEqual([400, 'invalid_json']);
    expect([list.status, list.body.error?.code]).toEqual([400, 'invalid_json']);
  });

  it('answers a decision form with more fields than the parser takes with 413 payload_too_large', async () => {
    const res = await request(api.app).post('/v1/approvals/unknown-token/approve').type('form').send('a=1&'.repeat(1001));
    expect([res.status, res.body]).toEqual([413, { error: { code: 'payload_too_large', message: 'request body is too large (too many parameters)' } }]);
  });
});
