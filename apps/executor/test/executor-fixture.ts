import { useTargetServer, useWorkspace, type FixtureLifetime, type TargetServer, type TestContext, type TestWorkspace } from '@cronsvc/core/testing';
import { startExecutor, type Executor } from '../src/executor.js';

export interface ExecutorFixture {
  ctx: TestContext;
  target: TargetServer;
  /** The in-process executor; absent with `executor: false`. */
  executor: Executor;
  workspaceId: string;
  workspace: TestWorkspace;
  /** With `second`, a second workspace of that name. */
  second: TestWorkspace;
}

/**
 * Registers the hooks most executor tests share: a database and Redis prefix of the file's own
 * (`env` on top of the test configuration), a local target answering 200 "ok" (reset before each
 * test, with its record cleared), an in-process executor (unless `executor: false`, for a file
 * that runs executors as processes), a workspace named `workspace` and, with `second`, another
 * one. The fields are filled in by the first hooks; with `perTest`, each test gets all of it afresh.
 */
export function useExecutorFixture(options: { workspace?: string; second?: string; env?: Record<string, string>; executor?: boolean } & FixtureLifetime = {}): ExecutorFixture {
  const [setUp, tearDown] = options.perTest ? [beforeEach, afterEach] : [beforeAll, afterAll];
  const fixture = {} as ExecutorFixture;
  // Registered first so that it runs first: the executor stops before the context closes under it.
  tearDown(() => fixture.executor?.stop());
  const base = useWorkspace({ env: options.env, name: options.workspace, second: options.second, perTest: options.perTest });
  fixture.target = useTargetServer({ perTest: options.perTest });
  setUp(() => {
    fixture.ctx = base.ctx;
    fixture.workspace = base.workspace;
    fixture.workspaceId = base.workspaceId;
    fixture.second = base.second;
    if (options.executor !== false) fixture.executor = startExecutor(fixture.ctx.runtime);
  });
  return fixture;
}
