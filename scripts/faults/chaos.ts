import pg from 'pg';
import { alive, hasStarted, type AppName, type CompiledService, type TestDatabase, type ThrowawayRedis } from '@cronsvc/core/testing';
import { until } from './burst.js';

// The chaos soak's driver (chaos.test.ts): a process manager that starts again every process of
// the split topology that exits, and the faults it is put through meanwhile: a random process
// SIGKILLed every few seconds, the test's own Redis restarted without its data, and every
// connection to the test's own database terminated.

export interface Fault {
  /** Injected, or a 'stall taken over': a live process the others judged dead (stallsTakenOver). */
  kind: 'kill' | 'redis restart' | 'connections terminated' | 'stall taken over';
  at: number;
  endedAt: number;
  /** A kill's process. */
  app?: AppName;
  pid?: number;
}

export interface Restart {
  app: AppName;
  exitedAt: number;
  /** When the new process said it started; undefined if it never did (killed or failed first). */
  startedAt?: number;
}

export interface Supervisor {
  /** Every pid the service has had, restarted processes included. */
  pids: Set<number>;
  restarts: Restart[];
  /** Restarts nothing from now on. */
  stop(): void;
}

const exited = (app: { child: { exitCode: number | null; signalCode: string | null } }) => app.child.exitCode !== null || app.child.signalCode !== null;

/** Whether the process at that place runs and has said it started. */
export function running(entry: CompiledService['processes'][number]): boolean {
  return !exited(entry.app) && hasStarted(entry);
}

/**
 * Starts each process of `service` again `delayMs` after it exits, whatever ended it, as systemd's
 * `Restart=always` or an orchestrator would, until stop().
 */
export function superviseRestarts(service: CompiledService, delayMs: number): Supervisor {
  let stopping = false;
  const pids = new Set<number>();
  const restarts: Restart[] = [];
  const watch = (index: number) => {
    const entry = service.processes[index];
    pids.add(entry.app.child.pid!);
    void entry.app.exited.then(() => {
      const restart: Restart = { app: entry.name, exitedAt: Date.now() };
      setTimeout(() => {
        if (stopping) return;
        const app = service.restart(index);
        restarts.push(restart);
        watch(index);
        const started = setInterval(() => {
          if (hasStarted(service.processes[index])) restart.startedAt = Date.now();
          if (restart.startedAt || exited(app) || stopping) clearInterval(started);
        }, 50);
      }, delayMs);
    });
  };
  service.processes.forEach((_, index) => watch(index));
  return {
    pids,
    restarts,
    stop() {
      stopping = true;
    },
  };
}

/** Those of `pids` still running. */
export function survivors(pids: Iterable<number>): number[] {
  return [...pids].filter(alive);
}

export interface ChaosPlan {
  durationMs: number;
  /** The pause before each kill is drawn between these. */
  killEveryMs: [number, number];
  /** When Redis restarts, and when the connections are terminated, as fractions of the duration. */
  redisRestartsAt: number[];
  terminationsAt: number[];
  /** How long Redis stays down at each restart. */
  redisDownMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGKILLs a random running process every so often until `endsAt`. */
async function killAtRandom(service: CompiledService, plan: ChaosPlan, endsAt: number, faults: Fault[]): Promise<void> {
  const [min, max] = plan.killEveryMs;
  for (;;) {
    const next = Date.now() + min + Math.random() * (max - min);
    if (next > endsAt) return;
    await until(next);
    const candidates = service.processes.filter(running);
    if (candidates.length === 0) continue;
    const victim = candidates[Math.floor(Math.random() * candidates.length)];
    const fault: Fault = { kind: 'kill', at: Date.now(), endedAt: 0, app: victim.name, pid: victim.app.child.pid };
    faults.push(fault);
    await victim.app.kill('SIGKILL');
    fault.endedAt = Date.now();
  }
}

/** Every connection to the test's database but this one, terminated ten times in two seconds, as postgres-faults.test.ts does. */
async function terminateConnections(database: TestDatabase): Promise<void> {
  const admin = new pg.Client({ connectionString: database.url.replace(/\/[^/?]*(\?|$)/, '/postgres$1') });
  await admin.connect();
  try {
    for (let i = 0; i < 10; i++) {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database.name]);
      await sleep(200);
    }
  } finally {
    await admin.end();
  }
}

/** Runs the plan's faults from now on; answers them, in the order they began, once the last has ended. */
export async function runChaos(service: CompiledService, redis: ThrowawayRedis, database: TestDatabase, plan: ChaosPlan): Promise<Fault[]> {
  const startsAt = Date.now();
  const endsAt = startsAt + plan.durationMs;
  const faults: Fault[] = [];
  const timed = async (kind: Fault['kind'], fraction: number, fault: () => Promise<void>) => {
    await until(startsAt + fraction * plan.durationMs);
    const record: Fault = { kind, at: Date.now(), endedAt: 0 };
    faults.push(record);
    await fault();
    record.endedAt = Date.now();
  };
  await Promise.all([
    killAtRandom(service, plan, endsAt, faults),
    ...plan.redisRestartsAt.map((f) =>
      timed('redis restart', f, async () => {
        await redis.stop();
        await sleep(plan.redisDownMs);
        await redis.start();
      }),
    ),
    ...plan.terminationsAt.map((f) => timed('connections terminated', f, () => terminateConnections(database))),
  ]);
  await until(endsAt);
  return faults.sort((a, b) => a.at - b.at);
}

const TAKEOVER = /^took over the (work|deliveries) of (executors|notifiers) whose heartbeat stopped$/;

/**
 * The takeovers the service's log reports of workers that were not killed: live processes whose
 * heartbeat stayed silent for the dead-after period (stalled: on a machine short of CPU, their
 * event loop did not run), whose work in flight the documented exception lets go out again under
 * the same ids (docs/RELIABILITY.md, "A dead or stalled executor"). Each as a fault of the
 * stalled process's kind, from its last heartbeat to the takeover.
 */
export async function stallsTakenOver(output: string, databaseUrl: string, killed: Set<number>, deadAfterMs: number): Promise<Fault[]> {
  const takeovers = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; time: string; workers?: string[] })
    .filter((line) => TAKEOVER.test(line.msg));
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; kind: AppName; pid: number }>('SELECT id, kind, pid FROM workers');
    const workers = new Map(rows.map((w) => [w.id, w]));
    return takeovers.flatMap((line) =>
      (line.workers ?? [])
        .map((id) => workers.get(id))
        .filter((w) => w !== undefined && !killed.has(w.pid))
        .map((w): Fault => ({ kind: 'stall taken over', at: Date.parse(line.time) - deadAfterMs, endedAt: Date.parse(line.time), app: w!.kind, pid: w!.pid })),
    );
  } finally {
    await client.end();
  }
}
