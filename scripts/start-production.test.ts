import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { closedPort, databaseUrl, spawnProcess, repoRoot, testRun, uniqueName } from '@cronsvc/core/testing';

// With NODE_ENV=production nothing embedded starts by itself: a store that cannot be reached
// stops `npm start` at once with exit code 78 and the variable to set.

let deadPort: number;

beforeAll(async () => {
  deadPort = await closedPort();
});

async function start(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const app = spawnProcess(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/start.ts')], {
    NODE_ENV: 'production',
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PORT: '0',
    QUEUE_BACKEND: '',
    ...env,
  });
  try {
    return { code: await app.exited, output: app.output() };
  } finally {
    await app.kill('SIGKILL').catch(() => undefined);
  }
}

it('exits 78 naming DATABASE_URL when the database cannot be reached, and starts nothing embedded', async () => {
  const { code, output } = await start({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${deadPort}/cron_service`, REDIS_URL: `redis://127.0.0.1:${deadPort}` });
  expect(code).toBe(78);
  expect(output).toMatch(new RegExp(`DATABASE_URL: cannot connect to postgresql://postgres@127\\.0\\.0\\.1:${deadPort}/cron_service .*Set DATABASE_URL to a reachable PostgreSQL server`));
  expect(output).not.toMatch(/embedded PostgreSQL (initialised|on)/);
});

it('exits 78 naming REDIS_URL when Redis cannot be reached and the queue backend is not chosen', async () => {
  // A database name of this test run's: were the check to pass, the run's teardown drops it.
  const { code, output } = await start({ DATABASE_URL: databaseUrl(uniqueName(`cronsvc_test_${testRun}`)), REDIS_URL: `redis://127.0.0.1:${deadPort}` });
  expect(code).toBe(78);
  expect(output).toMatch(new RegExp(`REDIS_URL: cannot connect to redis://127\\.0\\.0\\.1:${deadPort}.*Set REDIS_URL to a reachable Redis, or QUEUE_BACKEND=postgres`));
});

it('exits 78 naming ADMIN_TOKEN and BOOTSTRAP_API_TOKEN when either is shorter than 32 characters, without printing them', async () => {
  const { code, output } = await start({ ADMIN_TOKEN: 'change-me', BOOTSTRAP_API_TOKEN: 'dev-token-0123456789abcdef01234', REDIS_URL: `redis://127.0.0.1:${deadPort}` });
  expect(code).toBe(78);
  expect(output).toMatch(/ADMIN_TOKEN: must be at least 32 characters long when NODE_ENV=production \(it is 9\)/);
  expect(output).toMatch(/BOOTSTRAP_API_TOKEN: must be at least 32 characters long when NODE_ENV=production \(it is 31\)/);
  expect(output).not.toContain('change-me');
  expect(output).not.toContain('dev-token-0123456789abcdef01234');
});

it('accepts tokens of 32 characters and more in production (and goes on to the next check)', async () => {
  const { code, output } = await start({
    ADMIN_TOKEN: 'a'.repeat(32),
    BOOTSTRAP_API_TOKEN: `csk_${randomBytes(32).toString('base64url')}`,
    DATABASE_URL: `postgresql://postgres@127.0.0.1:${deadPort}/cron_service`,
    REDIS_URL: `redis://127.0.0.1:${deadPort}`,
  });
  expect(code).toBe(78);
  expect(output).not.toMatch(/_TOKEN/);
  expect(output).toMatch(/DATABASE_URL: cannot connect/);
});
