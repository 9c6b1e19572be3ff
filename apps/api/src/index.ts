export * from './server.js';
export * from './app.js';
export { CONSOLE_PATH } from './console/paths.js';
