import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { createDb, type Db } from '../src/db/client.js';
import { newId } from '../src/ids/ids.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { repoRoot } from './test-context.js';

// prisma migrate cannot run here, so the migrations are written by hand; this proves they
// build exactly the tables, columns, nullability and indexes that schema.prisma describes.

interface Field {
  column: string;
  type: string;
  optional: boolean;
}
interface Model {
  name: string;
  table: string;
  fields: Map<string, Field>;
  /** Column lists of every index the schema asks for, unique ones prefixed with "unique:". */
  indexes: string[];
}

const PG_TYPES: Record<string, string> = { String: 'text', Int: 'integer', DateTime: 'timestamp with time zone', Json: 'jsonb', Boolean: 'boolean', BigInt: 'bigint', Float: 'double precision' };

function parseSchema(text: string): Model[] {
  const models: Model[] = [];
  for (const [, name, body] of text.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const fields = new Map<string, Field>();
    const indexes: string[] = [];
    let table = name;
    const columnsOf = (list: string) => list.split(',').map((f) => fields.get(f.trim().split('(')[0])?.column ?? `?${f.trim()}`).join(',');
    const blockLines = body.split('\n').map((l) => l.replace(/\/\/.*$/, '').trim()).filter(Boolean);
    for (const line of blockLines) {
      if (line.startsWith('@@')) continue;
      const m = /^(\w+)\s+(\w+)(\?|\[\])?\s*(.*)$/.exec(line);
      if (!m || !PG_TYPES[m[2]]) continue;
      const column = /@map\("(\w+)"\)/.exec(m[4])?.[1] ?? m[1];
      fields.set(m[1], { column, type: PG_TYPES[m[2]], optional: m[3] === '?' });
      if (/@id\b/.test(m[4])) indexes.push(`unique:${column}`);
      if (/@unique\b/.test(m[4])) indexes.push(`unique:${column}`);
    }
    for (const line of blockLines) {
      const map = /^@@map\("(\w+)"\)/.exec(line);
      if (map) table = map[1];
      const idx = /^@@(index|unique|id)\(\[([^\]]+)\]/.exec(line);
      if (idx) indexes.push(`${idx[1] === 'index' ? '' : 'unique:'}${columnsOf(idx[2])}`);
    }
    models.push({ name, table, fields, indexes: indexes.sort() });
  }
  return models;
}

let database: TestDatabase;
let client: pg.Client;
let db: Db;
let models: Model[];

beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  db = createDb(database.url);
  models = parseSchema(await readFile(path.join(repoRoot, 'prisma/schema.prisma'), 'utf8'));
});
afterAll(async () => {
  await client.end();
  await db.$disconnect();
  await database.drop();
});

it('finds every model of schema.prisma', () => {
  expect(models.map((m) => m.name).sort()).toEqual(['ApiToken', 'Attempt', 'AuditEvent', 'ConsoleSession', 'Delivery', 'Event', 'Execution', 'ExecutionCount', 'FireGap', 'HostBudgetRate', 'HostBudgetSlot', 'HostLimit', 'InFlightCount', 'Job', 'JobContext', 'JobCount', 'JobStatsHour', 'JobStreak', 'Monitor', 'MonitorPing', 'MonitorStateDay', 'NotificationChannel', 'NotificationRule', 'RateLimitWindow', 'RuleSnoozeToken', 'Secret', 'StatusPage', 'StepAttempt', 'StepExecution', 'StoredBytesTotal', 'StoredValueUpgrade', 'Worker', 'Workspace']);
});

it('has exactly the tables of the schema', async () => {
  const { rows } = await client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'");
  expect(rows.map((r) => r.table_name).sort()).toEqual(models.map((m) => m.table).sort());
});

it('has each model’s columns with the schema’s types and nullability, and no others', async () => {
  for (const model of models) {
    const { rows } = await client.query<{ column_name: string; data_type: string; is_nullable: string }>(
      'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
      ['public', model.table],
    );
    const actual = Object.fromEntries(rows.map((r) => [r.column_name, `${r.data_type}${r.is_nullable === 'YES' ? '?' : ''}`]));
    const expected = Object.fromEntries([...model.fields.values()].map((f) => [f.column, `${f.type}${f.optional ? '?' : ''}`]));
    expect({ table: model.table, columns: actual }).toEqual({ table: model.table, columns: expected });
  }
});

it('has each model’s indexes, unique where the schema says so, and no others', async () => {
  for (const model of models) {
    const { rows } = await client.query<{ columns: string; is_unique: boolean }>(
      `SELECT string_agg(a.attname, ',' ORDER BY k.ord) AS columns, i.indisunique AS is_unique
         FROM pg_index i
         JOIN pg_class t ON t.oid = i.indrelid
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE t.relname = $1
        GROUP BY i.indexrelid, i.indisunique`,
      [model.table],
    );
    const actual = rows.map((r) => `${r.is_unique ? 'unique:' : ''}${r.columns}`).sort();
    expect({ table: model.table, indexes: actual }).toEqual({ table: model.table, indexes: model.indexes });
  }
});

it('round-trips every column of every model through the Prisma client', async () => {
  const now = new Date('2030-01-01T00:00:00.123Z');
  const ws = await db.workspace.create({ data: { id: newId('wsp'), name: 'w', signingKey: 'whsec_x' } });
  const token = await db.apiToken.create({ data: { id: newId('tok'), workspaceId: ws.id, tokenHash: 'h' } });
  const job = await db.job.create({
    data: {
      id: newId('job'), workspaceId: ws.id, name: 'j', kind: 'cron', state: 'active', schedule: { cron: '* * * * *' }, scheduleAnchor: now,
      request: { url: 'https://x' }, steps: [{ id: 's' }], retryPolicy: { max_attempts: 3 }, nextRunAt: now, maxConcurrentExecutions: 2,
      maxWorkflowDurationSeconds: 10, onSuccessUrl: 'https://s', onFailureUrl: 'https://f', notificationOverride: 'mute_all', idempotencyKey: 'k',
      webhookToken: 'enc1:t', webhookTokenHash: 'th', webhookSecretHash: 'sh',
    },
  });
  const exe = await db.execution.create({
    data: {
      id: newId('exe'), workspaceId: ws.id, jobId: job.id, jobName: 'j', status: 'failed', source: 'schedule', scheduledFor: now, fireKey: 'fk',
      attemptCount: 1, nextAttemptAt: now, lockedUntil: now, variables: { uuid: 'u' }, finalResponse: { statusCode: 500 }, finalOutput: { a: 1 },
      errorClass: 'HTTP_5XX', errorMessage: 'm', deadLetteredAt: now, replayOfId: 'exe_o', startedAt: now, finishedAt: now, durationMs: 5,
      triggerInput: { body: 1 }, steps: [{ id: 's' }], stepIndex: 2, context: { k: 'v' }, deadlineAt: now,
    },
  });
  await db.attempt.create({
    data: { executionId: exe.id, number: 1, status: 'HTTP_ERROR', statusCode: 500, latencyMs: 3, bodyPreview: 'b', responseHeaders: { a: 'b' }, errorClass: 'HTTP_5XX', errorMessage: 'm', startedAt: now },
  });
  await db.stepExecution.create({
    data: {
      id: newId('stp'), executionId: exe.id, stepIndex: 0, stepId: 's', type: 'approval', status: 'failed', attemptCount: 1, input: { i: 1 }, output: { o: 1 },
      extracted: { e: 1 }, errorClass: 'APPROVAL_REJECTED', errorMessage: 'm', tokenHash: 'h', waitingPayload: { w: 1 }, expiresAt: now, decision: 'rejected',
      decidedAt: now, startedAt: now, finishedAt: now,
    },
  });
  await db.stepAttempt.create({
    data: { executionId: exe.id, stepIndex: 0, number: 1, status: 'SUCCESS', statusCode: 200, latencyMs: 2, bodyPreview: 'b', responseHeaders: { a: 'b' }, errorClass: null, errorMessage: null, startedAt: now },
  });
  await db.jobContext.create({ data: { jobId: job.id, entries: { cursor: '42' } } });
  await db.workspace.update({ where: { id: ws.id }, data: { previousSigningKey: 'whsec_old', signingKeyRotatedAt: now, signingKeyCreatedAt: now } });
  await db.secret.create({ data: { id: newId('sec'), workspaceId: ws.id, name: 'API_KEY', value: 'enc1:x' } });
  await db.delivery.create({
    data: {
      id: newId('dlv'), workspaceId: ws.id, executionId: exe.id, kind: 'callback', event: 'on_failure', url: 'https://cb', payload: { event: 'execution.failed' },
      status: 'failed', attempts: 5, lastStatusCode: 500, lastError: 'e', nextAttemptAt: now, sentAt: now,
    },
  });
  const read = await db.workspace.findUniqueOrThrow({
    where: { id: ws.id },
    include: {
      tokens: true, secrets: true,
      jobs: { include: { context: true, executions: { include: { attempts: true, deliveries: true, stepExecutions: { include: { attempts: true } } } } } },
    },
  });
  expect(read).toMatchObject({ previousSigningKey: 'whsec_old', signingKeyRotatedAt: now, signingKeyCreatedAt: now });
  expect(read.secrets[0]).toMatchObject({ name: 'API_KEY', value: 'enc1:x' });
  expect(read.jobs[0].executions[0].deliveries[0]).toMatchObject({ kind: 'callback', lastStatusCode: 500, sentAt: now, payload: { event: 'execution.failed' } });
  expect(read.tokens[0]).toMatchObject({ id: token.id, tokenHash: 'h' });
  expect(read.jobs[0]).toMatchObject({ notificationOverride: 'mute_all', steps: [{ id: 's' }], maxWorkflowDurationSeconds: 10, nextRunAt: now });
  expect(read.jobs[0].executions[0]).toMatchObject({ fireKey: 'fk', variables: { uuid: 'u' }, lockedUntil: now, durationMs: 5, deadLetteredAt: now });
  expect(read.jobs[0].executions[0].attempts[0]).toMatchObject({ statusCode: 500, responseHeaders: { a: 'b' }, startedAt: now });
  expect(read.jobs[0]).toMatchObject({ webhookToken: 'enc1:t', webhookTokenHash: 'th', webhookSecretHash: 'sh', context: { entries: { cursor: '42' } } });
  expect(read.jobs[0].executions[0]).toMatchObject({ triggerInput: { body: 1 }, steps: [{ id: 's' }], stepIndex: 2, context: { k: 'v' }, deadlineAt: now });
  expect(read.jobs[0].executions[0].stepExecutions[0]).toMatchObject({ decision: 'rejected', decidedAt: now, waitingPayload: { w: 1 }, input: { i: 1 }, tokenHash: 'h' });
  expect(read.jobs[0].executions[0].stepExecutions[0].attempts[0]).toMatchObject({ statusCode: 200, responseHeaders: { a: 'b' } });
  await db.workspace.delete({ where: { id: ws.id } });
  expect(await db.stepExecution.count()).toBe(0);
  expect(await db.stepAttempt.count()).toBe(0);
  expect(await db.jobContext.count()).toBe(0);
  expect(await db.attempt.count()).toBe(0);
  expect(await db.delivery.count()).toBe(0);
  expect(await db.secret.count()).toBe(0);
});

it('round-trips the notification and monitor models, and cascades from workspace, job, channel and monitor', async () => {
  const now = new Date('2030-01-01T00:00:00.123Z');
  const ws = await db.workspace.create({ data: { id: newId('wsp'), name: 'w', signingKey: 'whsec_x' } });
  const job = await db.job.create({
    data: { id: newId('job'), workspaceId: ws.id, name: 'j', kind: 'cron', state: 'active', scheduleAnchor: now, retryPolicy: {}, maxConcurrentExecutions: 0 },
  });
  const channel = await db.notificationChannel.create({
    data: { id: newId('chn'), workspaceId: ws.id, name: 'c', type: 'webhook', config: { a: 1 }, credentials: 'enc1:x', secretRefs: ['S'], createdAt: now, updatedAt: now },
  });
  const monitor = await db.monitor.create({
    data: { id: newId('mon'), workspaceId: ws.id, name: 'm', expectedIntervalSec: 60, graceSec: 5, state: 'up', pingToken: 't', pingTokenHash: 'pth', lastPingAt: now, nextDueAt: now },
  });
  await db.notificationRule.create({ data: { id: newId('rul'), workspaceId: ws.id, channelId: channel.id, jobId: job.id, event: 'on_failure' } });
  await db.notificationRule.create({ data: { id: newId('rul'), workspaceId: ws.id, channelId: channel.id, monitorId: monitor.id, event: 'on_down' } });
  await db.delivery.create({
    data: { id: newId('dlv'), workspaceId: ws.id, monitorId: monitor.id, kind: 'channel', channelId: channel.id, ruleId: 'rul_x', event: 'on_down', payload: {}, context: { c: 1 }, status: 'sent' },
  });
  const event = await db.event.create({ data: { workspaceId: ws.id, type: 'monitor.down', monitorId: monitor.id, payload: { p: 1 }, createdAt: now } });
  expect(typeof event.id).toBe('bigint');
  expect(await db.event.findUniqueOrThrow({ where: { id: event.id } })).toMatchObject({ type: 'monitor.down', monitorId: monitor.id, executionId: null, payload: { p: 1 }, createdAt: now });
  expect(await db.notificationChannel.findUniqueOrThrow({ where: { id: channel.id } })).toMatchObject({ config: { a: 1 }, secretRefs: ['S'], credentials: 'enc1:x', createdAt: now });
  expect(await db.monitor.findUniqueOrThrow({ where: { id: monitor.id } })).toMatchObject({ graceSec: 5, lastPingAt: now, nextDueAt: now, pingToken: 't', pingTokenHash: 'pth' });
  expect(await db.delivery.findFirstOrThrow({ where: { monitorId: monitor.id } })).toMatchObject({ channelId: channel.id, ruleId: 'rul_x', context: { c: 1 } });
  // A second (channel, event) rule on the same job is refused, although monitor_id is null in both.
  await expect(db.notificationRule.create({ data: { id: newId('rul'), workspaceId: ws.id, channelId: channel.id, jobId: job.id, event: 'on_failure' } })).rejects.toThrow();
  await db.job.delete({ where: { id: job.id } });
  expect(await db.notificationRule.count({ where: { channelId: channel.id } })).toBe(1);
  await db.monitor.delete({ where: { id: monitor.id } });
  expect(await db.notificationRule.count({ where: { channelId: channel.id } })).toBe(0);
  expect(await db.delivery.count({ where: { channelId: channel.id } })).toBe(0);
  await db.workspace.delete({ where: { id: ws.id } });
  expect(await db.notificationChannel.count()).toBe(0);
  await db.event.deleteMany();
});
