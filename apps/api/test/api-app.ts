import { createTestContext, type TestContext } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import type { LazyRouter } from '../src/middleware/lazy-router.js';

export interface ApiApp {
  ctx: TestContext;
  app: ReturnType<typeof createApp>;
}

/**
 * The API app of one test file, on a test context of its own (its own database and Redis prefix,
 * `env` on top of the test configuration, or what `env()` answers in the hook when it depends on
 * servers an earlier hook started), created before the file's tests and closed after them.
 * Read `ctx` and `app` inside hooks and tests, not at the top of the file, where they are not set yet.
 */
export function useApiApp(env: Record<string, string> | (() => Record<string, string>) = {}): ApiApp {
  const api = {} as ApiApp;
  beforeAll(async () => {
    api.ctx = await createTestContext(typeof env === 'function' ? env() : env);
    api.app = createApp(api.ctx.runtime);
  });
  afterAll(() => api.ctx?.close());
  return api;
}

/**
 * Builds the routers an app builds on their first request (src/middleware/lazy-router.ts: the
 * console, the queue dashboard), so that listRoutes sees every route the app can answer.
 */
export async function loadLazyRouters(app: ReturnType<typeof createApp>): Promise<void> {
  const stack = (app as unknown as { router: { stack: { handle: Partial<LazyRouter> }[] } }).router.stack;
  await Promise.all(stack.map((layer) => layer.handle.load?.()));
}
