// Builds the migrated template database once per test run; each test file copies it in
// milliseconds. Compiles the service too (`npm run build`, about a second), so that the tests
// that start it as production does run the code under test. Plain JS: jest loads global setup
// outside its module mapper.
// Names carry this run's pid, so concurrent runs on one server stay apart and the leftovers
// of a run that was killed are recognised (their pid is gone) and dropped.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

export default async function globalSetup() {
  const build = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/build.ts')], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
  const run = String(process.pid);
  process.env.CRONSVC_TEST_RUN = run;
  const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cron_service');
  base.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  try {
    const { rows } = await admin.query(`SELECT datname FROM pg_database WHERE datname ~ '^cronsvc_(tpl|test)_[0-9]+(_|$)'`);
    for (const { datname } of rows) {
      const pid = Number(datname.split('_')[2]);
      if (pid === process.pid || !alive(pid)) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
  base.pathname = `/cronsvc_tpl_${run}`;
  const result = spawnSync(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'scripts/migrate.ts')], {
    // With BullMQ's queue schema too, so that test files can run the queues on PostgreSQL.
    env: { ...process.env, DATABASE_URL: base.toString(), QUEUE_BACKEND: 'postgres' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`migrating the test template failed:\n${result.stdout}\n${result.stderr}`);
}
