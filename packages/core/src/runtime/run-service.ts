import type { Config } from '../config/config.js';
import { markProcess } from '../metrics/families.js';
import { createRuntime, type Runtime } from './bootstrap.js';
import { startHealthServer } from './health-server.js';
import { startHeartbeat, type WorkerKind } from './heartbeat.js';
import { operatorEndpoints } from './operator-endpoints.js';
import { announce } from './startup-lines.js';
import { startUp } from './start-up.js';
import { stopOnSignals, type Stoppable } from './stop-signals.js';

export type Service = Stoppable;

/**
 * What a worker process adds to its work: its heartbeat, and, started alone with HEALTH_PORT,
 * /healthz, /readyz and /metrics on that port. stop() removes both.
 */
async function workerSignals(runtime: Runtime, kind: WorkerKind): Promise<{ healthPort?: number; stop(): Promise<void> }> {
  const { config, logger } = runtime;
  const heartbeat = await startHeartbeat(runtime, kind, config.supervisor, runtime.workerId);
  // Also what answers a supervisor's requests for this process's metrics.
  const endpoints = operatorEndpoints(runtime, { scope: { workerId: heartbeat.workerId, kind }, serviceGauges: false });
  // Under a supervisor the API answers for every process, and children would share one port.
  const wantsPort = config.healthPort !== undefined && config.supervisor === undefined;
  const server = wantsPort ? await startHealthServer(endpoints, config.healthPort!, logger) : null;
  return {
    healthPort: server?.port,
    async stop() {
      await server?.close();
      await heartbeat.stop();
    },
  };
}

/**
 * The life of one process: start up, start the service, and on SIGINT, SIGTERM or SIGHUP stop it
 * (finishing work in flight, up to STOP_GRACE_SECONDS) before closing connections and, if this
 * process started it, the embedded PostgreSQL (stopOnSignals, docs/RELIABILITY.md "Stopping the
 * service"). Under a supervisor it also stops when the supervisor goes away without telling it.
 */
export async function runService(name: 'api' | WorkerKind, start: (runtime: Runtime) => Promise<Service> | Service, options: { dbPoolSize?: (config: Config) => number } = {}): Promise<void> {
  // The API owns BOOTSTRAP_API_TOKEN: it also revokes what an earlier setting made.
  const { config, logger, stores } = await startUp(name, { bootstrapToken: () => (name === 'api' ? 'own' : 'apply') });
  const runtime = createRuntime(config, logger, { dbPoolSize: options.dbPoolSize?.(config) });
  const service = await start(runtime);
  const signals = name === 'api' ? null : await workerSignals(runtime, name);
  markProcess(name);
  announce(logger, config, name, signals?.healthPort);
  const stop = stopOnSignals({
    logger,
    graceMs: config.stopGraceMs,
    services: [service],
    // Under a supervisor, which says how to stop waiting, only the executor adds its count.
    quiet: config.supervisor !== undefined && service.inFlight === undefined,
    async close() {
      await signals?.stop();
      await runtime.close();
      await stores.stop();
    },
  });
  // The supervisor's IPC channel closes when it dies: a child left behind would run on unwatched.
  if (process.channel) process.once('disconnect', () => stop('supervisor gone'));
}
