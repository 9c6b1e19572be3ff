import { createTestContext, startTargetServer, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { startExecutor, type Executor } from '../src/executor.js';

export interface ExecutorFixture {
  ctx: TestContext;
  target: TargetServer;
  executor: Executor;
  workspaceId: string;
}

/**
 * Registers the hooks most executor tests share: a database and Redis prefix of the file's own,
 * a local target answering 200 "ok" (reset before each test, with its record cleared), an
 * in-process executor and a workspace. The fields are filled in by the first beforeAll.
 */
export function useExecutorFixture(workspaceName = 'test'): ExecutorFixture {
  const fixture = {} as ExecutorFixture;
  beforeAll(async () => {
    fixture.ctx = await createTestContext();
    fixture.target = await startTargetServer();
    fixture.executor = startExecutor(fixture.ctx.runtime);
    fixture.workspaceId = (await fixture.ctx.workspace(workspaceName)).id;
  });
  afterAll(async () => {
    await fixture.executor.stop();
    await fixture.target.close();
    await fixture.ctx.close();
  });
  beforeEach(() => {
    fixture.target.received.length = 0;
    fixture.target.handle((_req, res) => void res.end('ok'));
  });
  return fixture;
}
