// `npm run migrate`: creates the database named by DATABASE_URL if missing and applies pending migrations.
import { applyMigrations, ensureDatabase } from '@cronsvc/core';

const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cron_service';
await ensureDatabase(url);
const applied = await applyMigrations(url);
process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
