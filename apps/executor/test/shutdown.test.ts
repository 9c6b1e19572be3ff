import { createJob, getExecution } from '@cronsvc/core';
import { createTestContext, startTargetServer, waitFor } from '@cronsvc/core/testing';
import { startExecutor } from '../src/executor.js';

it('finishes and records the attempt in flight when told to stop, and takes no new work', async () => {
  const ctx = await createTestContext();
  const target = await startTargetServer();
  try {
    const { id: workspaceId } = await ctx.workspace();
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    target.handle(async (_req, res) => {
      await held;
      res.end('finished late');
    });
    const executor = startExecutor(ctx.runtime);
    const { job } = await createJob(ctx.runtime, workspaceId, { name: 'in flight', kind: 'one_time', request: { url: target.url } });
    await waitFor(() => target.received.length === 1, { what: 'the request to start' });
    const stopping = executor.stop();
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(stopped).toBe(false);
    release();
    await stopping;
    const exe = await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: job.id } });
    expect((await getExecution(ctx.runtime, workspaceId, exe.id)).status).toBe('succeeded');

    const { job: later } = await createJob(ctx.runtime, workspaceId, { name: 'after stop', kind: 'one_time', request: { url: target.url } });
    await new Promise((r) => setTimeout(r, 500));
    expect((await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: later.id } })).status).toBe('queued');
    expect(target.received).toHaveLength(1);
  } finally {
    await target.close();
    await ctx.close();
  }
});
