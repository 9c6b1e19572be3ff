import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { applyMigrations, readMigrations } from '../src/db/migrate.js';
import { revealPingToken } from '../src/monitors/ping-token.js';
import { recordPing } from '../src/monitors/record-ping.js';
import { decryptCredentials } from '../src/notifications/channel-credentials.js';
import { prepareDatabase } from '../src/runtime/prepare-database.js';
import { resolveSecrets } from '../src/secrets/resolve-secrets.js';
import { STORED_VALUES_UPGRADE, upgradeStoredValues } from '../src/secrets/upgrade-stored-values.js';
import { getSigningKey } from '../src/signatures/signing-keys.js';
import { checkTriggerSecret, findTrigger } from '../src/workflows/receive-trigger.js';
import { revealWebhookToken } from '../src/jobs/webhook-credentials.js';
import { aChannel, aJob, aMonitor, aTriggerJob, httpStep, pingTokenOf, useWorkspace } from './factories.js';
import { capturingLogger } from './capturing-logger.js';
import { legacyEncrypted, legacyWebhookSecretHash } from './legacy-values.js';
import { databaseUrl, testRun, uniqueName } from './test-env.js';

// Values written before they were bound to their rows (enc1:, or in clear for ping tokens and the
// first signing keys) still read, and start-up rewrites them all as enc2: once, under the
// migration lock, after which they read the same.

const w = useWorkspace();
const key = () => w.ctx.config.secretsEncryptionKey;
const db = () => w.ctx.runtime.db;

it('reads the older forms, rewrites each as enc2: once at start-up, and reads the same values after', async () => {
  const workspaceId = w.workspaceId;
  const secret = await db().secret.create({ data: { id: 'sec_legacy', workspaceId, name: 'OLD', value: legacyEncrypted(key(), 'old-secret-value') } });
  const channel = await aChannel(w.ctx.runtime, workspaceId, 'webhook', { url: 'https://example.com/hook' });
  await db().notificationChannel.update({ where: { id: channel.id }, data: { credentials: legacyEncrypted(key(), JSON.stringify({ url: 'https://example.com/hook' })) } });
  const job = await aJob(w.ctx.runtime, workspaceId, aTriggerJob([httpStep('s', 'https://example.com/')]));
  const token = revealWebhookToken(key(), job)!;
  await db().job.update({ where: { id: job.id }, data: { webhookToken: legacyEncrypted(key(), token), webhookSecretHash: legacyWebhookSecretHash(key(), 'shared') } });
  const signingKey = (await getSigningKey(w.ctx.runtime, workspaceId)).signing_key;
  const previousKey = `whsec_${randomBytes(32).toString('base64')}`;
  await db().workspace.update({ where: { id: workspaceId }, data: { signingKey: legacyEncrypted(key(), signingKey), previousSigningKey: previousKey, signingKeyRotatedAt: new Date() } });
  const monitor = await aMonitor(w.ctx.runtime, workspaceId);
  const pingToken = pingTokenOf(w.ctx.runtime, monitor);
  await db().monitor.update({ where: { id: monitor.id }, data: { pingToken } });

  const read = async () => ({
    secret: (await resolveSecrets(w.ctx.runtime, workspaceId, ['OLD'])).values.get('OLD'),
    credentials: await db().notificationChannel.findUniqueOrThrow({ where: { id: channel.id } }).then((row) => decryptCredentials(key(), row, row.credentials)),
    token: revealWebhookToken(key(), await db().job.findUniqueOrThrow({ where: { id: job.id } })),
    signingKey: (await getSigningKey(w.ctx.runtime, workspaceId)).signing_key,
    ping: revealPingToken(key(), await db().monitor.findUniqueOrThrow({ where: { id: monitor.id } })),
  });
  const expected = { secret: 'old-secret-value', credentials: { url: 'https://example.com/hook' }, token, signingKey, ping: pingToken };
  expect(await read()).toEqual(expected);

  const { logger, lines } = capturingLogger();
  await db().storedValueUpgrade.deleteMany();
  // Two apps starting together: the lock makes them take turns, and the second finds nothing to do.
  const [first, second] = await Promise.all([prepareDatabase(w.ctx.config, logger).then(() => 'prepared'), upgradeStoredValues(w.ctx.config.databaseUrl, key())]);
  expect(first).toBe('prepared');
  const rewritten = [lines.join('\n'), JSON.stringify(second.rewritten)].join('\n');
  for (const column of ['secrets.value', 'notification_channels.credentials', 'jobs.webhook_token', 'workspaces.signing_key', 'workspaces.previous_signing_key', 'monitors.ping_token']) {
    expect(rewritten).toContain(`"${column}":1`);
  }

  const rows = {
    secret: (await db().secret.findUniqueOrThrow({ where: { id: secret.id } })).value,
    channel: (await db().notificationChannel.findUniqueOrThrow({ where: { id: channel.id } })).credentials,
    job: (await db().job.findUniqueOrThrow({ where: { id: job.id } })).webhookToken,
    workspace: await db().workspace.findUniqueOrThrow({ where: { id: workspaceId } }),
    monitor: (await db().monitor.findUniqueOrThrow({ where: { id: monitor.id } })).pingToken,
  };
  for (const value of [rows.secret, rows.channel, rows.job, rows.workspace.signingKey, rows.workspace.previousSigningKey, rows.monitor]) expect(value).toMatch(/^enc2:/);
  expect(await read()).toEqual(expected);
  expect(await db().storedValueUpgrade.findUnique({ where: { name: STORED_VALUES_UPGRADE } })).not.toBeNull();
  expect(await upgradeStoredValues(w.ctx.config.databaseUrl, key())).toEqual({ rewritten: {}, unreadable: {}, done: true });
});

it('checks a first-version webhook secret hash, and rewrites it once a call has shown the secret', async () => {
  const job = await aJob(w.ctx.runtime, w.workspaceId, aTriggerJob([httpStep('s', 'https://example.com/')]));
  const legacy = legacyWebhookSecretHash(key(), 'shared');
  await db().job.update({ where: { id: job.id }, data: { webhookSecretHash: legacy } });
  const found = (await findTrigger(w.ctx.runtime, revealWebhookToken(key(), job)!))!;
  await expect(checkTriggerSecret(w.ctx.runtime, found, 'wrong')).rejects.toMatchObject({ code: 'unauthorized' });
  expect((await db().job.findUniqueOrThrow({ where: { id: job.id } })).webhookSecretHash).toBe(legacy);
  await checkTriggerSecret(w.ctx.runtime, found, 'shared');
  const rehashed = (await db().job.findUniqueOrThrow({ where: { id: job.id } })).webhookSecretHash!;
  expect(rehashed).toMatch(/^v2:/);
  await expect(checkTriggerSecret(w.ctx.runtime, { ...found, webhook_secret_hash: rehashed }, 'shared')).resolves.toBeUndefined();
});

it('leaves a value that does not open with this key as it is, and tries again at the next start', async () => {
  await db().secret.create({ data: { id: 'sec_other_key', workspaceId: w.workspaceId, name: 'OTHER', value: legacyEncrypted(randomBytes(32), 'x') } });
  await db().storedValueUpgrade.deleteMany();
  const summary = await upgradeStoredValues(w.ctx.config.databaseUrl, key());
  expect(summary).toEqual({ rewritten: {}, unreadable: { 'secrets.value': 1 }, done: false });
  expect((await db().secret.findUniqueOrThrow({ where: { id: 'sec_other_key' } })).value).toMatch(/^enc1:/);
  expect(await db().storedValueUpgrade.count()).toBe(0);
});

it('keeps the ping URL of a monitor stored before ping tokens were hashed, through the migration and the start-up rewrite', async () => {
  const name = uniqueName(`cronsvc_test_${testRun}`);
  const url = databaseUrl(name);
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const client = new pg.Client({ connectionString: url });
  try {
    const migrations = await readMigrations();
    const before = migrations.findIndex((m) => m.name === '20261126000000_ping_token_hash');
    await applyMigrations(url, migrations.slice(0, before));
    await client.connect();
    const token = randomBytes(32).toString('base64url');
    await client.query(`INSERT INTO workspaces (id, name, signing_key, updated_at) VALUES ('wsp_old', 'old', 'whsec_x', now())`);
    await client.query(`INSERT INTO monitors (id, workspace_id, name, expected_interval_sec, state, ping_token, updated_at) VALUES ('mon_old', 'wsp_old', 'old', 60, 'new', $1, now())`, [token]);

    await applyMigrations(url, migrations);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      expect(await recordPing({ pool }, token, new Date())).toBe(true);
      await upgradeStoredValues(url, key());
      const { rows } = await client.query<{ ping_token: string; workspace_id: string; id: string }>(`SELECT id, workspace_id, ping_token FROM monitors`);
      expect(rows[0].ping_token).toMatch(/^enc2:/);
      expect(revealPingToken(key(), { id: rows[0].id, workspaceId: rows[0].workspace_id, pingToken: rows[0].ping_token })).toBe(token);
      expect(await recordPing({ pool }, token, new Date())).toBe(true);
      expect(await recordPing({ pool }, randomBytes(32).toString('base64url'), new Date())).toBe(false);
    } finally {
      await pool.end();
    }
  } finally {
    await client.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
});
