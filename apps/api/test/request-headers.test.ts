import request from 'supertest';
import { aCronJob } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

// A job may not frame its own request: framing and connection headers, names that are not HTTP
// tokens and values with CR, LF or NUL answer 400 and store nothing (docs/SECURITY.md).

let auth: { Authorization: string };

const api = useApiApp();

beforeAll(async () => {
  ({ auth } = await api.ctx.workspace());
});

describe('request headers at save time', () => {
  it('answers POST /v1/jobs with a framing header 400 validation_failed at request.headers.<name>, and stores nothing', async () => {
    const before = (await request(api.app).get('/v1/jobs').set(auth)).body.total;
    const res = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ request: { method: 'POST', headers: { 'Content-Length': '0', 'X-Fine': 'yes', 'X-Bad': 'a\r\nHost: evil' }, body: 'x' } }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'request.headers.Content-Length', message: expect.stringContaining('may not be set') },
        { path: 'request.headers.X-Bad', message: expect.stringContaining('CR, LF, NUL') },
      ]),
    );
    expect(res.body.error.details).toHaveLength(2);
    expect((await request(api.app).get('/v1/jobs').set(auth)).body.total).toBe(before);
  });

  it('answers a PATCH that adds one the same way, and keeps the job as it was', async () => {
    const created = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ request: { method: 'POST', headers: { 'X-Fine': 'yes' }, body: 'x' } }));
    expect(created.status).toBe(201);
    const res = await request(api.app).patch(`/v1/jobs/${created.body.id}`).set(auth).send({ request: { headers: { 'transfer-encoding': 'chunked' } } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: 'request.headers.transfer-encoding', message: expect.stringContaining('may not be set') }]);
    expect((await request(api.app).get(`/v1/jobs/${created.body.id}`).set(auth)).body.request.headers).toEqual({ 'X-Fine': 'yes' });
  });
});
