// @cronsvc/core/start-up: what the supervisor of `npm start` needs to find the stores and prepare
// the database, without the rest of core (Prisma, BullMQ, the HTTP client), which its children
// load: the supervisor stays small while it waits on them.
export { storesEnv } from './runtime/resolve-stores.js';
export { startUp, SUPERVISED_ENV } from './runtime/start-up.js';
