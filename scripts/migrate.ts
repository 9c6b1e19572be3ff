// `npm run migrate`: creates the database named by DATABASE_URL if missing and applies pending
// migrations, and BullMQ's queue schema too when QUEUE_BACKEND=postgres, under the same advisory
// lock as every process's start-up. Exits 78 when the database holds migrations this code does not
// know (a newer version migrated it).
// Imports the appliers alone, so a migration can run even while the rest of the code does not load.
import { applyMigrations, applyQueueSchema, ensureDatabase, UnknownMigrationsError } from '@cronsvc/core/migrations';

const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cron_service';
try {
  await ensureDatabase(url);
  const applied = await applyMigrations(url);
  if (process.env.QUEUE_BACKEND === 'postgres') await applyQueueSchema(url);
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(error instanceof UnknownMigrationsError ? 78 : 1);
}
