import { ApiError, createClient, NetworkError } from '@cronsvc/client';
import { useCliApi } from './cli-harness.js';

// The typed client the CLI is built on, against the real API: answers come back as the contract's
// shapes, the API's error envelope as one ApiError, no answer at all as a NetworkError.

const api = useCliApi();
const client = () => createClient({ baseUrl: api.url, token: api.token });

it('creates, reads, lists, runs and deletes a job with the contract’s shapes', async () => {
  const created = await client().jobs.create({ name: 'client job', kind: 'recurring', schedule: { every_n_minutes: 60 }, request: { url: `${api.target.url}/c` } });
  expect(created).toMatchObject({ name: 'client job', kind: 'recurring', state: 'active', schedule: { every_n_minutes: 60 } });
  expect(created.id).toMatch(/^job_/);
  expect(await client().jobs.get(created.id)).toEqual(created);

  const list = await client().jobs.list({ limit: 1 });
  expect(list).toMatchObject({ total: 1, limit: 1, offset: 0 });
  expect(list.data.map((j) => j.id)).toEqual([created.id]);

  const execution = await client().jobs.runNow(created.id);
  expect(execution).toMatchObject({ job_id: created.id, source: 'manual', status: 'queued' });

  await expect(client().jobs.delete(created.id)).resolves.toBeUndefined();
  await expect(client().jobs.get(created.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
});

it('turns the API’s error envelope into an ApiError with its status, code and details', async () => {
  const error = await client()
    .jobs.create({ name: '', kind: 'recurring', schedule: { every_n_minutes: 0 }, request: { url: `${api.target.url}/c` } })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ status: 400, code: 'validation_failed' });
  expect((error as ApiError).details.map((d) => d.path).sort()).toEqual(['name', 'schedule.every_n_minutes']);

  const unauthorized = await createClient({ baseUrl: api.url, token: 'csk_wrong' }).jobs.list().catch((e: unknown) => e);
  expect(unauthorized).toBeInstanceOf(ApiError);
  expect(unauthorized).toMatchObject({ status: 401 });
});

it('reports a service that does not answer as a NetworkError', async () => {
  const error = await createClient({ baseUrl: 'http://127.0.0.1:9', token: api.token }).jobs.list().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(NetworkError);
  expect((error as NetworkError).url).toContain('127.0.0.1:9/v1/jobs');
});
