import { DelayedError, type Job, type Worker } from 'bullmq';
import {
  ClaimsInHand,
  createHttpClient,
  createWorker,
  fairShareDeferrals,
  heldBackExecutions,
  HostGate,
  isUnavailable,
  postgresHostLimiter,
  redisHostLimiter,
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
import { HeldBack, type Attempt, type HeldBackAttempt } from './held-back.js';

// Held attempts cost a timer and a few hundred bytes each; past this many the queue keeps the rest.
// Attempts held back by fair share cost less (no timer), and as many may wait.
const HOLD_LIMIT = 50_000;
// How often a workspace held back here for want of room looks again, in case the room came back
// on another executor (this one learns of its own turns ending at once).
const PROBE_MS = 1_000;
// An attempt outside a queue job that failed is queued again this much later; so is one that
// waited for the database when the executor stops.
const RETRY_AFTER_ERROR_MS = 1_000;
// A held-back attempt's queue job waits this long in the delayed set rather than ending, so that
// the reconciler, finding it there, does not queue the execution again every interval; it comes
// back only should this executor have lost the attempt (and is then held back again, or runs).
const HELD_BACK_RECHECK_MS = 30_000;

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
  // Started from its lane, a held-back attempt has been admitted already.
  const heldBack = new HeldBack({ cap: config.workspaceMaxInFlight, limit: HOLD_LIMIT, start: (item) => runLoose(item, { fromLane: true }) });
  // Host budgets are shared where the queues are: Redis, or PostgreSQL with QUEUE_BACKEND=postgres.
  const limiter = runtime.redis ? redisHostLimiter(runtime.redis, config.redisPrefix) : postgresHostLimiter(runtime.pool);
  const deps = {
    ...runtime,
    http,
    claims,
    hostGate: new HostGate({ pool: runtime.pool, limiter, logger }),
    inSlot: <T>(workspaceId: string | undefined, work: () => Promise<T>) => slots.run(workspaceId ?? '', work),
    onRoom: (workspaceId: string, room: number) => heldBack.room(workspaceId, room),
  };
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
  let stopped: () => void = () => undefined;
  const whenStopping = new Promise<void>((resolve) => (stopped = resolve));
  /**
   * After an attempt failed: true when it failed because the database is away and the database
   * answers again, so the attempt is to be made again at once (docs/adr/033-noticing-the-database-is-back.md);
   * false for any other failure, or when the executor began to stop meanwhile.
   */
  const databaseBack = async (error: unknown): Promise<boolean> => {
    const back = stopping ? undefined : runtime.databaseOutage.untilBack(error);
    if (!back) return false;
    await Promise.race([back, whenStopping]);
    return !stopping;
  };
  let abandoned: Promise<void> | undefined;
  /**
   * The attempt of an admitted item (heldBack.admit). However it ends, its turn is over for
   * `heldBack`; 'held' when its claim was refused for room and its lane took it back. Each attempt
   * logs in a scope of its own, which the claim names with the request id of the execution's
   * creator, so every line about the execution carries it.
   */
  const attempt = async (item: Attempt): Promise<RunOutcome | 'held'> => {
    let outcome: RunOutcome;
    try {
      outcome = await withLogContext({}, () => runAttempt(deps, item.executionId, { workspaceId: item.workspaceId, traceparent: item.traceparent }));
    } catch (error) {
      heldBack.ended(item.workspaceId);
      throw error;
    }
    if (!('deferred' in outcome)) heldBack.ended(item.workspaceId);
    else {
      fairShareDeferrals.inc();
      if (heldBack.deferred(item)) return 'held';
    }
    return outcome;
  };

  // Queue jobs can arrive a little before their delay ends; one that did must still be held,
  // or it would go back to the delayed set and come back up to a Redis tick late.
  const holdWindowMs = config.executorPrefetchMs + 1_000;
  /** Holds an attempt due within the window until its time; false if it is later, the hold is full, or we are stopping. */
  const holdUntil = (item: Attempt, at: number): boolean => !stopping && at - Date.now() <= holdWindowMs && held.hold({ ...item, runAt: at });

  /**
   * Runs an attempt outside a queue job's handler (held for its time, out of its fair-share lane,
   * or taken over from a dead executor): whatever it does not finish is queued again under its id.
   */
  function runLoose(item: Attempt, options: { fromLane: boolean }) {
    const requeue = (runAt: Date) => deps.queues.enqueueExecutions([{ ...item, runAt }]);
    const run = (async () => {
      try {
        // Out of its lane (admitted there), it leaves no queue job behind to run it a second time;
        // should one stay (the store slow, or the job still on its way to the delayed set), it
        // finds the attempt claimed or done when it comes back.
        if (options.fromLane) await deps.queues.cancelExecutions([item]).catch(() => undefined);
        else if (!heldBack.admit(item)) return;
        const outcome = await attempt(item);
        if (outcome === 'held') return;
        if ('deferred' in outcome) await requeue(outcome.retryAt);
        // Its queue job is done with: queued again under the same id, it runs at once elsewhere.
        else if ('handedBack' in outcome) await requeue(new Date());
        else if ('retryAt' in outcome && !holdUntil(item, outcome.retryAt.getTime())) await requeue(outcome.retryAt);
      } catch (error) {
        // The database away: the attempt stays here and is made again the moment it answers
        // (with the queues in PostgreSQL, there is no queue to give it back to meanwhile).
        if (await databaseBack(error)) return runLoose(item, { fromLane: false });
        // Anything else, or a stop: the queue takes the attempt back for a second later, or,
        // should that fail too, the reconciler queues it once it is overdue.
        logger.warn('held attempt failed; queueing it again', { executionId: item.executionId, error: (error as Error).message });
        await requeue(new Date(Date.now() + RETRY_AFTER_ERROR_MS)).catch(() => undefined);
      }
    })();
    track(run);
  }
  const runHeld = (item: HeldAttempt) => runLoose({ executionId: item.executionId, attempt: item.attempt, workspaceId: item.workspaceId, traceparent: item.traceparent }, { fromLane: false });
  /** A queue job whose attempt is held back: it waits in the delayed set while the attempt is in its lane. */
  const waitInLane = async (job: Job<ExecutionPayload>, token: string | undefined): Promise<never> => {
    await job.moveToDelayed(Date.now() + HELD_BACK_RECHECK_MS, token);
    throw new DelayedError();
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
      const item: Attempt = { executionId: data.executionId, attempt: data.attempt, workspaceId: data.workspaceId, traceparent: data.traceparent };
      if (data.runAt !== undefined && data.runAt > Date.now() && holdUntil(item, data.runAt)) return;
      // Held back by its workspace's fair share: it waits in its lane, Postgres keeps the execution queued.
      if (!heldBack.admit(item)) return waitInLane(job, token);
      let outcome: Awaited<ReturnType<typeof attempt>> | undefined;
      while (outcome === undefined) {
        try {
          outcome = await attempt(item);
        } catch (error) {
          // Postgres is away: the attempt is made again under the same queue job the moment it
          // answers, instead of failing its queue job and waiting for the reconciler.
          if (await databaseBack(error)) {
            if (!heldBack.admit(item)) return waitInLane(job, token);
            continue;
          }
          if (!isUnavailable(error)) throw error;
          // Stopping while Postgres is away: back to the queue, for whoever runs next.
          await job.moveToDelayed(Date.now() + RETRY_AFTER_ERROR_MS, token);
          throw new DelayedError();
        }
      }
      if (outcome === 'held') return waitInLane(job, token);
      if ('deferred' in outcome) {
        await job.moveToDelayed(outcome.retryAt.getTime(), token);
        throw new DelayedError();
      }
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
      const left = [...running, ...due].filter(
        (item) => !holdUntil({ executionId: item.executionId, attempt: item.attempt, workspaceId: item.workspaceId }, Math.min(item.runAt.getTime(), Date.now() + holdWindowMs)),
      );
      if (left.length === 0) return;
      deps.queues.requeueExecutions(left).catch((error) => logger.warn('queueing executions taken over failed; the reconciler will queue them', { count: left.length, error: (error as Error).message }));
    },
  });
  const probe = setInterval(() => {
    heldBack.probe();
    heldBackExecutions.set(heldBack.size);
  }, PROBE_MS);
  probe.unref();
  worker.on('failed', (job, error) => logger.warn('execution job failed', { executionId: job?.data.executionId, error: error.message }));
  worker.on('error', (error) => runtime.reportQueueError(error, 'executor worker error'));
  if (config.workspaceMaxInFlight >= config.executorConcurrency) {
    logger.warn('WORKSPACE_MAX_IN_FLIGHT is not below EXECUTOR_CONCURRENCY: one workspace whose requests hang can take every slot of this executor', {
      workspaceMaxInFlight: config.workspaceMaxInFlight,
      concurrency: config.executorConcurrency,
    });
  }
  logger.info('executor started', { concurrency: config.executorConcurrency, prefetchMs: config.executorPrefetchMs, workspaceMaxInFlight: config.workspaceMaxInFlight });
  return {
    worker,
    async stop() {
      stopping = true;
      stopped();
      await deadExecutors.stop();
      clearInterval(probe);
      // Not awaited yet: closing waits for the queue jobs in hand, and the held attempts must go back first.
      const closed = worker.close();
      const now = new Date();
      const heldBackItems = heldBack.release();
      heldBackExecutions.set(0);
      const released = [
        ...held.release().map((r) => ({ executionId: r.executionId, attempt: r.attempt, workspaceId: r.workspaceId, runAt: new Date(r.runAt) })),
        ...heldBackItems.map((r: HeldBackAttempt) => ({ ...r, runAt: now })),
      ];
      if (released.length > 0) {
        // A held-back attempt whose queue job waits in the delayed set is woken; one without a
        // queue job (held, then held back) gets a new one.
        await deps.queues
          .enqueueExecutions(released)
          .then(() => deps.queues.wakeExecutions(heldBackItems))
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
        stopped();
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
