import request from 'supertest';
import { aChannel, aMonitor, aRule, pingTokenOf, waitFor } from '@cronsvc/core/testing';
import { startNotifier, type Notifier } from '../src/notifier.js';
import { useNotifierFixture } from './notifier-fixture.js';

// Down detection lives in Postgres (each monitor's deadline) and is swept by every notifier: with
// several running, each outage is told once; with none running, a deadline that passed is caught
// by the first notifier that starts.

const f = useNotifierFixture({ notifier: false });
const running: Notifier[] = [];
afterAll(() => Promise.all(running.map((n) => n.stop())));
const start = () => running.push(startNotifier(f.ctx.runtime));
const stopAll = () => Promise.all(running.splice(0).map((n) => n.stop()));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('tells each outage once with several notifiers, and catches a deadline passed while none ran', async () => {
  const hook = await aChannel(f.ctx.runtime, f.workspace.id, 'webhook', { url: `${f.receiver.url}/restarts/` });
  const monitor = await aMonitor(f.ctx.runtime, f.workspace.id, { expected_interval_sec: 1 });
  await aRule(f.ctx.runtime, f.workspace.id, { kind: 'monitor', id: monitor.id }, hook.id, 'on_down');
  const ping = () => request(f.app).get(`/v1/ping/${pingTokenOf(f.ctx.runtime, monitor)}`).expect(200);
  const downs = () => f.receiver.at('/restarts/').length;
  const dueAt = async () => Date.parse((await request(f.app).get(`/v1/monitors/${monitor.id}`).set(f.workspace.auth)).body.next_due_at);

  start();
  start();
  start();
  await ping();
  const firstDue = await dueAt();
  await waitFor(() => downs() === 1, { what: 'the on_down with three notifiers' });
  expect(Date.parse(JSON.parse(f.receiver.at('/restarts/')[0].body).timestamp) - firstDue).toBeLessThan(2_000);
  await sleep(1_500);
  expect(downs()).toBe(1);

  await stopAll();
  await ping();
  const due = await dueAt();
  await sleep(due - Date.now() + 1_000);
  // Nobody swept: still up past its deadline.
  expect((await request(f.app).get(`/v1/monitors/${monitor.id}`).set(f.workspace.auth)).body.state).toBe('up');
  const restartedAt = Date.now();
  start();
  await waitFor(() => downs() === 2, { what: 'the on_down after the restart' });
  expect(Date.parse(JSON.parse(f.receiver.at('/restarts/')[1].body).timestamp) - restartedAt).toBeLessThan(2_000);
});
