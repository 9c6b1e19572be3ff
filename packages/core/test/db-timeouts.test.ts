import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createDatabase, DB_STATEMENT_TIMEOUT_MS } from '../src/db/client.js';
import { isUnavailable } from '../src/errors/unavailable.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

// The service's pools must not wait forever for a database that does not answer, nor let a
// statement run forever.

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

it('gives up connecting to a server that accepts the connection and never answers', async () => {
  const sockets: net.Socket[] = [];
  const silent = net.createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { pool } = createDatabase(`postgresql://postgres@127.0.0.1:${(silent.address() as AddressInfo).port}/x`, { connectTimeoutMs: 300 });
  try {
    const error = await pool.query('SELECT 1').then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(isUnavailable(error)).toBe(true);
  } finally {
    await pool.end().catch(() => undefined);
    sockets.forEach((s) => s.destroy());
    silent.close();
  }
});

it('has Postgres cancel statements that run past the statement timeout', async () => {
  const { db, pool } = createDatabase(database.url);
  const short = createDatabase(database.url, { statementTimeoutMs: 200 });
  try {
    expect((await pool.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe(`${DB_STATEMENT_TIMEOUT_MS / 1000}s`);
    const error = await short.pool.query('SELECT pg_sleep(5)').then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({ code: '57014' });
    expect(isUnavailable(error)).toBe(true);
  } finally {
    await db.$disconnect();
    await pool.end();
    await short.db.$disconnect();
    await short.pool.end();
  }
});
