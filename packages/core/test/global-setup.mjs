// Builds the migrated template database once per test run; each test file copies it in
// milliseconds. Plain JS: jest loads global setup outside its module mapper.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TEMPLATE = 'cronsvc_test_template';

export default async function globalSetup() {
  const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cron_service');
  base.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  base.pathname = `/${TEMPLATE}`;
  const result = spawnSync(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'scripts/migrate.ts')], {
    env: { ...process.env, DATABASE_URL: base.toString() },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`migrating the test template failed:\n${result.stdout}\n${result.stderr}`);
}
