// `npm run migrate`: creates the database named by DATABASE_URL if missing and applies pending
// migrations, and BullMQ's queue schema too when QUEUE_BACKEND=postgres, under the same advisory
// lock as every process's start-up. With SECRETS_ENCRYPTION_KEY set it also rewrites stored values
// of an older form (as every app does at start-up; see
// packages/core/src/secrets/upgrade-stored-values.ts). Exits 78 when the database holds migrations
// this code does not know (a newer version migrated it).
// Imports the appliers alone, so a migration can run even while the rest of the code does not load.
import { applyMigrations, applyQueueSchema, ensureDatabase, UnknownMigrationsError, upgradeStoredValues } from '@cronsvc/core/migrations';

const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cron_service';
const key = process.env.SECRETS_ENCRYPTION_KEY ? Buffer.from(process.env.SECRETS_ENCRYPTION_KEY, 'base64') : undefined;
if (key && key.length !== 32) {
  process.stderr.write('SECRETS_ENCRYPTION_KEY must be 32 bytes, base64-encoded\n');
  process.exit(78);
}
try {
  await ensureDatabase(url);
  const applied = await applyMigrations(url);
  if (process.env.QUEUE_BACKEND === 'postgres') await applyQueueSchema(url);
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
  if (key) {
    const upgraded = await upgradeStoredValues(url, key);
    if (Object.keys(upgraded.rewritten).length > 0) process.stdout.write(`re-encrypted: ${JSON.stringify(upgraded.rewritten)}\n`);
    if (!upgraded.done) process.stderr.write(`left as they are (they do not open with SECRETS_ENCRYPTION_KEY, or changed meanwhile): ${JSON.stringify(upgraded.unreadable)}\n`);
  }
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(error instanceof UnknownMigrationsError ? 78 : 1);
}
