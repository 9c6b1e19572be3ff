export * from './test-context.js';
export * from './test-database.js';
export * from './target-server.js';
export * from './wait-for.js';
export * from './test-env.js';
export * from './raw-target-server.js';
