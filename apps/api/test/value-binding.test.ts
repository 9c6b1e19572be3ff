import request from 'supertest';
import { aChannelBody, aCronJob, aMonitor, aTriggerJob, httpStep } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

// Encrypted values are bound to their row (AES-GCM associated data): someone who can write rows
// but does not hold SECRETS_ENCRYPTION_KEY (a restored backup, an injected statement, a careless
// script) copies workspace A's ciphertext into workspace B's row. Before, it opened there as B's
// own value; now it does not open at all, and nothing of A's reaches B.

const f = useWorkflowFixture();

let other: { id: string; auth: { Authorization: string } };
beforeAll(async () => {
  const ws = await f.ctx.workspace('victim');
  other = { id: ws.id, auth: { Authorization: `Bearer ${ws.token}` } };
});

const asOther = {
  post: (path: string, body?: unknown) => request(f.app).post(path).set(other.auth).send(body as object),
  get: (path: string) => request(f.app).get(path).set(other.auth),
};

it("runs nothing with another workspace's secret copied into a secret row", async () => {
  const victim = await asOther.post('/v1/secrets', { name: 'API_KEY', value: 'victim-key-0123456789' });
  const mine = await f.post('/v1/secrets', { name: 'API_KEY', value: 'attacker-key-0123456789' });
  expect([victim.status, mine.status]).toEqual([201, 201]);
  const stolen = await f.ctx.runtime.db.secret.findUniqueOrThrow({ where: { id: victim.body.id } });
  await f.ctx.runtime.db.secret.update({ where: { id: mine.body.id }, data: { value: stolen.value } });

  const job = await f.createJob(aCronJob({ name: 'leak', request: { url: `${f.target.url}/leak`, headers: { 'X-Key': '{{secret.API_KEY}}' } } }));
  const exe = await f.until(await f.runNow(job.id), 'failed', 'succeeded');
  expect(exe.status).toBe('failed');
  expect(exe.attempts[0].errorMessage).toMatch(/cannot be decrypted/);
  expect(f.target.received).toHaveLength(0);
});

it("shows no trigger token, no ping URL and signs nothing with another workspace's values copied into its rows", async () => {
  const victimJob = (await asOther.post('/v1/jobs', aTriggerJob([httpStep('call', `${f.target.url}/x`)]))).body;
  const myJob = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)]));
  const victimJobRow = await f.ctx.runtime.db.job.findUniqueOrThrow({ where: { id: victimJob.id } });
  await f.ctx.runtime.db.job.update({ where: { id: myJob.id }, data: { webhookToken: victimJobRow.webhookToken } });
  const shown = await f.get(`/v1/jobs/${myJob.id}`);
  expect(shown.status).toBe(200);
  expect(shown.body.webhook_token).toBeNull();
  expect(JSON.stringify(shown.body)).not.toContain(victimJob.webhook_token);

  const victimMonitor = await aMonitor(f.ctx.runtime, other.id);
  const myMonitor = await aMonitor(f.ctx.runtime, f.workspaceId);
  await f.ctx.runtime.db.monitor.update({ where: { id: myMonitor.id }, data: { pingToken: victimMonitor.pingToken } });
  const monitor = await f.get(`/v1/monitors/${myMonitor.id}`);
  expect(monitor.body.ping_url).toBeNull();

  const victimKey = (await asOther.get('/v1/signing-key')).body.signing_key as string;
  const victimRow = await f.ctx.runtime.db.workspace.findUniqueOrThrow({ where: { id: other.id } });
  await f.ctx.runtime.db.workspace.update({ where: { id: f.workspaceId }, data: { signingKey: victimRow.signingKey } });
  const key = await f.get('/v1/signing-key');
  expect(key.status).toBe(500);
  expect(JSON.stringify(key.body)).not.toContain(victimKey);
  const job = await f.createJob(aCronJob({ name: 'signed', request: { url: `${f.target.url}/signed` } }));
  const exe = await f.until(await f.runNow(job.id), 'failed', 'succeeded');
  expect(exe.status).toBe('failed');
  expect(f.target.received).toHaveLength(0);
});

it("sends nothing through a channel holding another workspace's credentials", async () => {
  const victim = await asOther.post('/v1/notification-channels', aChannelBody('webhook', { url: `${f.target.url}/victim-hook`, signing_secret: 'victim-signing-secret' }));
  const mine = await f.post('/v1/notification-channels', aChannelBody('webhook', { url: `${f.target.url}/my-hook` }));
  expect([victim.status, mine.status]).toEqual([201, 201]);
  const stolen = await f.ctx.runtime.db.notificationChannel.findUniqueOrThrow({ where: { id: victim.body.id } });
  await f.ctx.runtime.db.notificationChannel.update({ where: { id: mine.body.id }, data: { credentials: stolen.credentials } });
  const tested = await f.post(`/v1/notification-channels/${mine.body.id}/test`);
  expect(tested.body).toMatchObject({ ok: false, error: { message: expect.stringMatching(/cannot be decrypted/) }, permanent: true });
  // The test sends within the request: nothing went out, neither to the victim's URL nor to ours.
  expect(f.target.received).toHaveLength(0);
});
