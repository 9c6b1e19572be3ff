// What other packages may use of db/; the other modules here are internal to @cronsvc/core.
export { type Db, type JobRow, Prisma, type SqlPool } from './client.js';
export { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres.js';
export { freePort, processAlive } from './local-host.js';
