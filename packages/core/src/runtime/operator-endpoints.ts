import type { ErrorEnvelope, Health, Readiness } from '@cronsvc/contracts';
import { Registry } from 'prom-client';
import { processRegistry } from '../metrics/registry.js';
import { secretsEqual } from '../workspaces/workspaces.js';
import type { Deps } from '../deps/deps.js';
import { checkReadiness, type WorkerScope } from './readiness.js';
import { createServiceGauges } from './service-gauges.js';
import { answerSupervisor, scrapeThroughSupervisor, supervisedScrapeAvailable } from './supervised-metrics.js';

export interface Answer<T> {
  status: number;
  body: T;
  contentType?: string;
}

/** /healthz, /readyz and /metrics of one process, whatever serves them (the API, or a worker's HEALTH_PORT). */
export interface OperatorEndpoints {
  health(): Answer<Health>;
  ready(): Promise<Answer<Readiness>>;
  /** The Prometheus text for a request with this Authorization header, or the error to answer. */
  metrics(authorization: string | undefined): Promise<Answer<string | ErrorEnvelope>>;
}

const unauthorized = (message: string): ErrorEnvelope => ({ error: { code: 'unauthorized', message } });

/**
 * `serviceGauges` adds the gauges of the whole service (queues, DLQ, late fires, deliveries,
 * monitors, readiness); the API sets it, workers do not. Under `npm start` /metrics answers for
 * every process of the supervisor, this one included.
 */
export function operatorEndpoints(deps: Pick<Deps, 'pool' | 'queues' | 'config' | 'logger'>, options: { scope: WorkerScope; serviceGauges: boolean }): OperatorEndpoints {
  const gauges = options.serviceGauges ? createServiceGauges(deps, options.scope) : null;
  const local = async () => {
    await gauges?.refresh();
    return gauges ? Registry.merge([processRegistry, gauges.registry]) : processRegistry;
  };
  if (deps.config.supervisor !== undefined) answerSupervisor(async () => (await local()).getMetricsAsJSON());
  let warnedAt = 0;
  return {
    health: () => ({ status: 200, body: { status: 'ok' } }),
    async ready() {
      const { ready, checks, errors } = await checkReadiness(deps, options.scope);
      // The body says only "unreachable" or "timeout"; what the driver said goes to the log, at
      // most once a minute, since probes ask every few seconds.
      if (Object.keys(errors).length > 0 && Date.now() - warnedAt > 60_000) {
        warnedAt = Date.now();
        deps.logger.warn('not ready', { checks, errors: Object.fromEntries(Object.entries(errors).map(([name, e]) => [name, e.message])) });
      }
      return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', checks } };
    },
    async metrics(authorization) {
      const adminToken = deps.config.adminToken;
      if (!adminToken) return { status: 404, body: { error: { code: 'not_found', message: 'metrics are off: set ADMIN_TOKEN to enable /metrics' } } };
      const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
      if (!token || !secretsEqual(token, adminToken)) return { status: 401, body: unauthorized('/metrics needs the admin token: Authorization: Bearer <ADMIN_TOKEN>') };
      // Under a supervisor, it asks this process for its part like any other child.
      const text = supervisedScrapeAvailable(deps.config.supervisor) ? await scrapeThroughSupervisor() : await (await local()).metrics();
      return { status: 200, body: text, contentType: processRegistry.contentType };
    },
  };
}
