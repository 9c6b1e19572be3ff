import { DelayedError, type Worker } from 'bullmq';
import {
  ClaimsInHand,
  createHttpClient,
  createWorker,
  keepCompleted,
  runAttempt,
  withLogContext,
  type ExecutionPayload,
  type RunOutcome,
  type Runtime,
} from '@cronsvc/core';
import { AttemptSlots } from './attempt-slots.js';
import { watchDeadExecutors } from './dead-executors.js';
import { HeldAttempts, type HeldAttempt } from './held-attempts.js';

// Held attempts cost a timer and a few hundred bytes each; past this many the queue keeps the rest.
const HOLD_LIMIT = 50_000;

export interface Executor {
  worker: Worker<ExecutionPayload>;
  /** Stops taking work, hands held attempts back to the queue, and waits for attempts in flight to be recorded. */
  stop(): Promise<void>;
  /**
   * Hands back the attempts whose requests are still out (docs/RELIABILITY.md, "Stopping the
   * service"): their claims are released and they are queued to run at once, by another executor
   * or the next start. Resolves once they are queued; stop() then finishes without waiting for them.
   */
  abandon(): Promise<void>;
  /** Attempts with their request out right now. */
  inFlight(): number;
}

/** Runs execution attempts from the execution queue, each at its due time. */
export function startExecutor(runtime: Runtime): Executor {
  const { config, logger } = runtime;
  const http = createHttpClient({ allowPrivateTargets: config.allowPrivateTargets });
  const slots = new AttemptSlots(config.executorConcurrency);
  const claims = new ClaimsInHand(runtime.pool, (error) => logger.warn('releasing a claim failed; the execution runs again once its lease ends', { error: error.message }));
  const deps = { ...runtime, http, claims, inSlot: <T>(work: () => Promise<T>) => slots.run(work) };
  // Held attempts running, and every queue job's handler: what abandon() waits for.
  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    inFlight.add(work);
    work.then(
      () => inFlight.delete(work),
      () => inFlight.delete(work),
    );
    return work;
  };
  let stopping = false;
  let abandoned: Promise<void> | undefined;
  // Each attempt logs in a scope of its own, which the claim names with the request id of the
  // execution's creator, so every line about the execution carries it.
  const attempt = (executionId: string): Promise<RunOutcome> => withLogContext({}, () => runAttempt(deps, executionId));

  // Queue jobs can arrive a little before their delay ends; one that did must still be held,
  // or it would go back to the delayed set and come back up to a Redis tick late.
  const holdWindowMs = config.executorPrefetchMs + 1_000;
  /** Holds an attempt due within the window until its time; false if it is later, the hold is full, or we are stopping. */
  const holdUntil = (item: Omit<HeldAttempt, 'runAt'>, at: number): boolean => !stopping && at - Date.now() <= holdWindowMs && held.hold({ ...item, runAt: at });

  const runHeld = (item: HeldAttempt) => {
    const run = (async () => {
      try {
        const outcome = await attempt(item.executionId);
        // Its queue job is done with: queued again under the same id, it runs at once elsewhere.
        if ('handedBack' in outcome) await deps.queues.enqueueExecutions([{ executionId: item.executionId, attempt: item.attempt, runAt: new Date() }]);
        else if ('retryAt' in outcome && !holdUntil(item, outcome.retryAt.getTime())) {
          await deps.queues.enqueueExecutions([{ executionId: item.executionId, attempt: item.attempt, runAt: outcome.retryAt }]);
        }
      } catch (error) {
        logger.warn('held attempt failed; the reconciler will queue it again', { executionId: item.executionId, error: (error as Error).message });
      }
    })();
    track(run);
  };
  // Thousands of attempts can come due in the same millisecond. Started a slice per turn of the
  // event loop, the first claims leave at once instead of after every attempt has been set up.
  const startSlice = Math.max(50, 2 * config.executorConcurrency);
  let slicesPending = 0;
  const startHeld = (items: HeldAttempt[]) => {
    items.slice(0, startSlice).forEach(runHeld);
    if (items.length <= startSlice) return;
    slicesPending += 1;
    setImmediate(() => {
      slicesPending -= 1;
      startHeld(items.slice(startSlice));
    });
  };
  const held = new HeldAttempts(startHeld, HOLD_LIMIT);

  const worker = createWorker<ExecutionPayload>(
    'execution',
    (data, job, token) => track((async () => {
      const item = { executionId: data.executionId, attempt: data.attempt };
      if (data.runAt !== undefined && data.runAt > Date.now() && holdUntil(item, data.runAt)) return;
      const outcome = await attempt(data.executionId);
      if ('handedBack' in outcome) {
        // Back to the queue under its id, due now: the next worker to look takes it.
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      if ('retryAt' in outcome && !holdUntil(item, outcome.retryAt.getTime())) {
        await job.moveToDelayed(outcome.retryAt.getTime(), token);
        throw new DelayedError();
      }
      // Recorded: this attempt is never queued again, so the dashboard may show it for a while.
      if ('done' in outcome) keepCompleted(job);
    })()),
    {
      connection: runtime.workerConnection(),
      // Twice the slots: a queue job whose attempt is being recorded has given its slot back
      // already, and the next one can start meanwhile.
      concurrency: 2 * config.executorConcurrency,
      // A worker that dies mid-attempt loses its queue lock after this long; another worker then
      // takes the job over, and the execution's lease (the same length) lets it claim the execution.
      lockDuration: config.executionLeaseMs,
      stalledInterval: Math.max(500, Math.floor(config.executionLeaseMs / 2)),
      maxStalledCount: 1000,
    },
  );
  // A dead executor's running executions and the attempts it may have held are run here, each at
  // its time, instead of after its leases and the reconciler (docs/adr/018-liveness-based-reclaim.md).
  // What this process cannot hold goes to the queue.
  const deadExecutors = watchDeadExecutors(runtime, {
    dueWithinMs: holdWindowMs,
    take: ({ running, due }) => {
      const left = [...running, ...due].filter((item) => !holdUntil(item, Math.min(item.runAt.getTime(), Date.now() + holdWindowMs)));
      if (left.length === 0) return;
      deps.queues.requeueExecutions(left).catch((error) => logger.warn('queueing executions taken over failed; the reconciler will queue them', { count: left.length, error: (error as Error).message }));
    },
  });
  worker.on('failed', (job, error) => logger.warn('execution job failed', { executionId: job?.data.executionId, error: error.message }));
  worker.on('error', (error) => logger.warn('executor worker error', { error: error.message }));
  logger.info('executor started', { concurrency: config.executorConcurrency, prefetchMs: config.executorPrefetchMs });
  return {
    worker,
    async stop() {
      stopping = true;
      await deadExecutors.stop();
      // Not awaited yet: closing waits for the queue jobs in hand, and the held attempts must go back first.
      const closed = worker.close();
      const released = held.release();
      if (released.length > 0) {
        await deps.queues
          .enqueueExecutions(released.map((r) => ({ executionId: r.executionId, attempt: r.attempt, runAt: new Date(r.runAt) })))
          .catch((error) => logger.warn('handing held attempts back failed; the reconciler will queue them', { count: released.length, error: (error as Error).message }));
      }
      await closed;
      while (inFlight.size > 0 || slicesPending > 0) await Promise.allSettled([...inFlight, new Promise((resolve) => setImmediate(resolve))]);
      // Handed back, requests may still be out: the client closes once they end, without holding up the stop.
      if (abandoned) void http.close();
      else await http.close();
    },
    abandon() {
      abandoned ??= (async () => {
        stopping = true;
        const count = claims.size;
        const released = await claims.handBack().catch((error: Error) => {
          logger.warn('releasing the claims in hand failed; those executions run again once their leases end', { error: error.message });
          return 0;
        });
        // Each turn handed back queues its attempt again as it ends.
        await Promise.allSettled([...inFlight]);
        logger.warn('work in flight handed back: it runs again, under the same execution ids', { requests: count, released });
      })();
      return abandoned;
    },
    inFlight: () => claims.size,
  };
}
