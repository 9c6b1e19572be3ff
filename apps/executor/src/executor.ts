import { DelayedError, type Worker } from 'bullmq';
import { createClaimBatcher, createHttpClient, createRecordBatcher, createWorker, runAttempt, type ExecutionPayload, type Runtime } from '@cronsvc/core';

const EARLY_WAIT_MS = 250;

export interface Executor {
  worker: Worker<ExecutionPayload>;
  /** Stops taking work and waits for attempts in flight to be recorded. */
  stop(): Promise<void>;
}

/** Runs execution attempts from the execution queue. */
export function startExecutor(runtime: Runtime): Executor {
  const { config, logger } = runtime;
  const http = createHttpClient({ allowPrivateTargets: config.allowPrivateTargets });
  const deps = { ...runtime, http, claims: createClaimBatcher(runtime.pool), records: createRecordBatcher(runtime.pool) };
  const worker = createWorker<ExecutionPayload>(
    'execution',
    async (data, job, token) => {
      let outcome = await runAttempt(deps, data.executionId);
      // A delayed queue job can arrive a little before its time; waiting here for a moment
      // is far quicker than another trip through the delayed set.
      const early = 'retryAt' in outcome ? outcome.retryAt.getTime() - Date.now() : Infinity;
      if (early <= EARLY_WAIT_MS) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, early)));
        outcome = await runAttempt(deps, data.executionId);
      }
      if ('retryAt' in outcome) {
        await job.moveToDelayed(outcome.retryAt.getTime(), token);
        throw new DelayedError();
      }
    },
    {
      connection: runtime.workerRedis(),
      prefix: config.redisPrefix,
      concurrency: config.executorConcurrency,
      // A worker that dies mid-attempt loses its queue lock after this long; another worker then
      // takes the job over, and the execution's lease (the same length) lets it claim the execution.
      lockDuration: config.executionLeaseMs,
      stalledInterval: Math.max(500, Math.floor(config.executionLeaseMs / 2)),
      maxStalledCount: 1000,
    },
  );
  worker.on('failed', (job, error) => logger.warn('execution job failed', { executionId: job?.data.executionId, error: error.message }));
  worker.on('error', (error) => logger.warn('executor worker error', { error: error.message }));
  logger.info('executor started', { concurrency: config.executorConcurrency });
  return {
    worker,
    async stop() {
      await worker.close();
    },
  };
}
