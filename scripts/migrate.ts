// `npm run migrate`: creates the database named by DATABASE_URL if missing and applies pending
// migrations, and BullMQ's queue schema too when QUEUE_BACKEND=postgres.
// Imports the appliers alone, so a migration can run even while the rest of the code does not load.
import { applyMigrations, applyQueueSchema, ensureDatabase } from '@cronsvc/core/migrations';

const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cron_service';
await ensureDatabase(url);
const applied = await applyMigrations(url);
if (process.env.QUEUE_BACKEND === 'postgres') await applyQueueSchema(url);
process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
