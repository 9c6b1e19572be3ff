import { capturingLogger } from '../../test/capturing-logger.js';
import { databaseOutage } from './database-outage.js';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** A probe that fails until `up` is set, counting its calls. */
function fakeDatabase() {
  const db = { up: false, probes: 0, probe: async () => {
    db.probes += 1;
    if (!db.up) throw refused();
  } };
  return db;
}

it('answers nothing for an error that is not the database being away', () => {
  const db = fakeDatabase();
  const outage = databaseOutage(db.probe, capturingLogger().logger, { probeMs: 5 });
  expect(outage.untilBack(new Error('null value in column "name"'))).toBeUndefined();
  expect(db.probes).toBe(0);
});

it('resolves every waiter at the first probe that succeeds, with one probe for all of them and one warning and one "back" line', async () => {
  const db = fakeDatabase();
  const logs = capturingLogger();
  const outage = databaseOutage(db.probe, logs.logger, { probeMs: 5 });
  let resolved = 0;
  const waits = Array.from({ length: 100 }, () => outage.untilBack(refused())!.then(() => (resolved += 1)));
  await new Promise((resolve) => setTimeout(resolve, 60));
  expect(resolved).toBe(0);
  expect(outage.down).toBe(true);
  // One look every 5 ms, however many wait: about a dozen in 60 ms, not a hundred per look.
  expect(db.probes).toBeLessThan(20);
  db.up = true;
  await Promise.all(waits);
  expect(resolved).toBe(100);
  expect(outage.down).toBe(false);
  expect(logs.entries().map((e) => e.msg)).toEqual([
    'the database cannot be reached (unreachable); work waits and goes on as soon as it answers',
    'the database is back',
  ]);
  outage.stop();
});

it('a blip that the first probe finds over logs nothing', async () => {
  const db = fakeDatabase();
  db.up = true;
  const logs = capturingLogger();
  const outage = databaseOutage(db.probe, logs.logger, { probeMs: 5 });
  await outage.untilBack(refused());
  expect(db.probes).toBe(1);
  expect(logs.lines).toEqual([]);
  outage.stop();
});

it('waits a probe interval before the first look, so that work failing at once is not retried in a tight loop', async () => {
  const db = fakeDatabase();
  db.up = true;
  const outage = databaseOutage(db.probe, capturingLogger().logger, { probeMs: 50 });
  const startedAt = Date.now();
  await outage.untilBack(refused());
  expect(Date.now() - startedAt).toBeGreaterThanOrEqual(45);
  outage.stop();
});
