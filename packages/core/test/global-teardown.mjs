// Drops this run's template database (test files drop their own databases).
import pg from 'pg';

export default async function globalTeardown() {
  const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cron_service');
  base.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS cronsvc_tpl_${process.env.CRONSVC_TEST_RUN} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
