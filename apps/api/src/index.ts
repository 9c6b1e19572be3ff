export * from './server.js';
export * from './app.js';
