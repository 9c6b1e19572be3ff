// Loaded with `node --import` before the CLI: any import of the server's modules (Prisma, BullMQ,
// pg, Redis, express, or a server package of this repo) fails, so a test can show the CLI never
// loads them.
import { register } from 'node:module';

const hooks = `
const FORBIDDEN = /^(@prisma\\/|prisma$|bullmq|ioredis|pg($|\\/)|express($|\\/)|@cronsvc\\/(core|api|executor|scheduler|notifier)($|\\/))/;
export async function resolve(specifier, context, next) {
  if (FORBIDDEN.test(specifier)) throw new Error('the CLI imported a server module: ' + specifier);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
