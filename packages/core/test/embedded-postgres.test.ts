import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { createLogger } from '../src/logging/logger.js';

const logger = createLogger({ level: 'silent', production: false, service: 'test' });
let dir: string;
const started: EmbeddedPostgres[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cronsvc-embedded-unit-'));
  await chmod(dir, 0o755);
});
afterAll(async () => {
  for (const server of started.reverse()) await server.stop();
  await rm(dir, { recursive: true, force: true });
});

it('starts one server per data directory: a second start joins the running one and leaves it running', async () => {
  const first = await startEmbeddedPostgres(path.join(dir, 'pg'), logger);
  started.push(first);
  expect(first.owned).toBe(true);
  expect(first.url).toMatch(new RegExp(`^postgresql://postgres:[^@]+@127\\.0\\.0\\.1:${first.port}/cron_service$`));
  const second = await startEmbeddedPostgres(path.join(dir, 'pg'), logger);
  expect(second).toMatchObject({ owned: false, port: first.port, url: first.url });
  await second.stop();
  const client = new pg.Client({ connectionString: first.url.replace(/cron_service$/, 'postgres') });
  await client.connect();
  try {
    const { rows } = await client.query<{ addr: string }>(`SELECT current_setting('listen_addresses') AS addr`);
    expect(rows[0].addr).toBe('127.0.0.1');
  } finally {
    await client.end();
  }
});

const asRoot = process.getuid?.() === 0 ? it : it.skip;
asRoot('refuses, naming the directory, a data directory the postgres user could not reach', async () => {
  const hidden = path.join(dir, 'hidden');
  await mkdir(hidden, { mode: 0o700 });
  await expect(startEmbeddedPostgres(path.join(hidden, 'pg'), logger)).rejects.toThrow(`cannot enter ${hidden} (mode 700)`);
});
