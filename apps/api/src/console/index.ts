// The web console (docs/CONSOLE.md): the router the API mounts, and where it is.
export { consoleRouter } from './console.router.js';
export { CONSOLE_PATH } from './paths.js';
