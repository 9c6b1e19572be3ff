import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import type { Db, SqlPool } from '../src/db/client.js';
import { isUnavailable, unavailableReason } from '../src/errors/unavailable.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { closedPort } from './test-env.js';
import { openDatabaseStores } from './database-stores.js';

// Every shape in which "the database cannot serve this" reaches the service, produced for real by
// pg, by Prisma over the pg adapter and by ioredis: each is unavailable (503 in the API, a fixed
// phrase in /readyz), and errors that are not (a constraint, bad SQL) are not.

let database: TestDatabase;
let refusedPort: number;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  refusedPort = await closedPort();
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
});
afterAll(() => database.drop());

function stores(url: string, options: Parameters<typeof openDatabaseStores>[1] = {}): { db: Db; pool: SqlPool } {
  const stores = openDatabaseStores(url, options);
  closers.push(stores.close);
  return stores;
}

const failure = (work: Promise<unknown>) => work.then(() => { throw new Error('expected a failure'); }, (error: unknown) => error);

/** A server that accepts connections and then does `onConnection` with them. */
async function fakeServer(onConnection: (socket: net.Socket) => void): Promise<string> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    sockets.forEach((s) => s.destroy());
    await new Promise((resolve) => server.close(resolve));
  });
  return `postgresql://postgres@127.0.0.1:${(server.address() as AddressInfo).port}/x`;
}

/** Runs `sql` on a connection of `target` while another connection ends it. */
async function terminatedWhile(target: (sql: string) => Promise<unknown>): Promise<unknown> {
  const marker = `terminated_${Math.random().toString(36).slice(2)}`;
  const running = failure(target(`SELECT pg_sleep(10) AS ${marker}`));
  const admin = stores(database.url);
  for (let i = 0; i < 100; i++) {
    const { rowCount } = await admin.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()`, [`%AS ${marker}%`]);
    if (rowCount) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return running;
}

/** Runs `query` while the workspaces table is locked by another transaction, with a statement timeout of 200 ms. */
async function timedOutWhileLocked(query: (s: { db: Db; pool: SqlPool }) => Promise<unknown>): Promise<unknown> {
  const short = stores(database.url, { statementTimeoutMs: 200 });
  const admin = stores(database.url);
  const holder = await admin.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE workspaces IN ACCESS EXCLUSIVE MODE');
    return await failure(query(short));
  } finally {
    await holder.query('ROLLBACK');
    holder.release();
  }
}

/**
 * A server that refuses every connection the way Postgres does when max_connections is reached:
 * a FATAL ErrorResponse with SQLSTATE 53300 in answer to the startup message. (The tests run as a
 * superuser, whom no database's CONNECTION LIMIT stops.)
 */
function tooManyClients(): Promise<string> {
  const field = (type: string, value: string) => Buffer.concat([Buffer.from(type), Buffer.from(value), Buffer.from([0])]);
  const fields = Buffer.concat([field('S', 'FATAL'), field('V', 'FATAL'), field('C', '53300'), field('M', 'sorry, too many clients already'), Buffer.from([0])]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(fields.length + 4);
  return fakeServer((socket) => socket.once('data', () => socket.end(Buffer.concat([Buffer.from('E'), length, fields]))));
}

async function poolExhausted(query: (s: { db: Db; pool: SqlPool }) => Promise<unknown>): Promise<unknown> {
  const one = stores(database.url, { max: 1, connectTimeoutMs: 300 });
  const held = await one.pool.connect();
  try {
    return await failure(query(one));
  } finally {
    held.release();
  }
}

describe('pg', () => {
  it.each([
    ['a refused connection', 'unreachable', async () => failure(stores(`postgresql://postgres@127.0.0.1:${refusedPort}/x`).pool.query('SELECT 1'))],
    ['a host name that does not resolve', 'unreachable', async () => failure(stores('postgresql://postgres@pg-internal.invalid:5432/x').pool.query('SELECT 1'))],
    ['a server that never answers the connection', 'timeout', async () => failure(stores(await fakeServer(() => undefined), { connectTimeoutMs: 300 }).pool.query('SELECT 1'))],
    ['a server that closes the connection at once', 'connection lost', async () => failure(stores(await fakeServer((s) => s.end())).pool.query('SELECT 1'))],
    ['a connection the server terminates (57P01)', 'connection lost', () => terminatedWhile((sql) => stores(database.url).pool.query(sql))],
    ['a statement timeout (57014)', 'timeout', () => timedOutWhileLocked(({ pool }) => pool.query('SELECT count(*) FROM workspaces'))],
    ['too many connections (53300)', 'overloaded', async () => failure(stores(await tooManyClients()).pool.query('SELECT 1'))],
    ['a pool with no connection free in time', 'timeout', () => poolExhausted(({ pool }) => pool.query('SELECT 1'))],
  ])('%s is %s', async (_shape, reason, produce) => {
    const error = await produce();
    expect(isUnavailable(error)).toBe(true);
    expect(unavailableReason(error)).toBe(reason);
  });
});

describe('Prisma over the pg adapter', () => {
  const raw = (s: { db: Db }) => s.db.$queryRawUnsafe('SELECT count(*) FROM workspaces');
  const model = (s: { db: Db }) => s.db.workspace.findMany();
  it.each([
    ['a refused connection', 'unreachable', async () => failure(model(stores(`postgresql://postgres@127.0.0.1:${refusedPort}/x`)))],
    ['a host name that does not resolve', 'unreachable', async () => failure(raw(stores('postgresql://postgres@pg-internal.invalid:5432/x')))],
    ['a server that never answers the connection', 'timeout', async () => failure(model(stores(await fakeServer(() => undefined), { connectTimeoutMs: 300 })))],
    ['a server that closes the connection at once', 'connection lost', async () => failure(model(stores(await fakeServer((s) => s.end()))))],
    ['a connection the server terminates (57P01), in a transaction', 'connection lost', () =>
      terminatedWhile((sql) => stores(database.url).db.$transaction(async (tx) => tx.$queryRawUnsafe(sql)))],
    ['a statement timeout (57014) of a raw query, whose code is only in the message', 'timeout', () => timedOutWhileLocked(raw)],
    ['a statement timeout (57014) of a model query', 'timeout', () => timedOutWhileLocked(model)],
    ['a statement timeout (57014) in an interactive transaction', 'timeout', () => timedOutWhileLocked((s) => s.db.$transaction((tx) => tx.workspace.count()))],
    ['too many connections (53300)', 'overloaded', async () => failure(model(stores(await tooManyClients())))],
    ['a pool with no connection free in time', 'timeout', () => poolExhausted(model)],
  ])('%s is %s', async (_shape, reason, produce) => {
    const error = await produce();
    expect(isUnavailable(error)).toBe(true);
    expect(unavailableReason(error)).toBe(reason);
  });
});

describe('errors that are not about availability', () => {
  it.each([
    ['a division by zero (pg)', () => failure(stores(database.url).pool.query(`SELECT 1 FROM (VALUES (1)) v WHERE 1/0 = 1`))],
    ['bad SQL (Prisma)', () => failure(stores(database.url).db.$queryRawUnsafe('SELEKT 1'))],
    ['a missing row (Prisma)', () => failure(stores(database.url).db.workspace.findUniqueOrThrow({ where: { id: 'wsp_nothing' } }))],
  ])('%s is not unavailable', async (_shape, produce) => {
    expect(unavailableReason(await produce())).toBeNull();
  });
});

it('a Redis that refuses connections is unavailable (ioredis reports only that the connection closed)', async () => {
  const redis = new Redis({ port: refusedPort, host: '127.0.0.1', maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
  closers.push(async () => redis.disconnect());
  expect(unavailableReason(await failure(redis.connect()))).toBe('connection lost');
});
