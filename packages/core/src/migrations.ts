// @cronsvc/core/migrations: the schema appliers alone, so `npm run migrate` works even while the
// rest of core does not load (a migration may be what it needs).
export { applyMigrations, ensureDatabase, UnknownMigrationsError } from './db/migrate.js';
export { applyQueueSchema } from './queues/queue-connection.js';
export { upgradeStoredValues } from './secrets/upgrade-stored-values.js';
