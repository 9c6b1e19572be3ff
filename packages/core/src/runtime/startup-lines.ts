import type { Config } from '../config/config.js';
import type { Logger } from '../logging/logger.js';

/** What a start announces: `all` for `npm start` (the supervisor, or ALL_IN_ONE), else the one app. */
export type StartScope = 'all' | 'api' | 'scheduler' | 'executor' | 'notifier';

/**
 * The lines that tell an operator where things are once the service is up: the API and its
 * reference page, the queue dashboard, the admin API and metrics, the web console, the health
 * port of a worker started alone, where spans go when they are exported, and a warning when the
 * target guard is off. The database and queue lines come earlier, from resolveStores.
 */
export function startupLines(config: Config, scope: StartScope, healthPort?: number): { info: string[]; warn: string[] } {
  const info: string[] = [];
  if (scope === 'all' || scope === 'api') {
    const local = `http://localhost:${config.port}`;
    const publicNote = config.publicBaseUrl === local ? '' : `; public address ${config.publicBaseUrl}`;
    info.push(
      `API: ${local} (listening on ${config.host}:${config.port}${publicNote}); /healthz and /readyz`,
      `API reference: ${local}/docs (OpenAPI document: ${local}/v1/openapi.json)`,
      `web console: ${local}/console`,
      config.adminToken
        ? `queue dashboard: ${local}/admin/queues (basic auth, password = ADMIN_TOKEN; ${config.queueDashboardActions ? 'actions enabled by QUEUE_DASHBOARD_ACTIONS' : 'read-only, QUEUE_DASHBOARD_ACTIONS=true enables actions'})`
        : 'queue dashboard: off (set ADMIN_TOKEN to enable it)',
      config.adminToken
        ? `admin API: on at ${local}/admin/v1; Prometheus metrics at ${local}/metrics (both with Authorization: Bearer <ADMIN_TOKEN>)`
        : 'admin API and /metrics: off (set ADMIN_TOKEN to enable them)',
    );
  }
  if (healthPort !== undefined) info.push(`health port: http://localhost:${healthPort}/healthz, /readyz and /metrics`);
  if (config.otlpTracesUrl !== undefined) info.push(`traces: spans exported over OTLP/HTTP to ${config.otlpTracesUrl}`);
  const warn = config.allowPrivateTargets
    ? ['ALLOW_PRIVATE_TARGETS=true: jobs, callbacks and notification channels may call loopback and private addresses; use it for development and tests only']
    : [];
  return { info, warn };
}

/** Logs the start-up lines; a supervised child leaves them to its supervisor (debug only). */
export function announce(logger: Logger, config: Config, scope: StartScope, healthPort?: number): void {
  const { info, warn } = startupLines(config, scope, healthPort);
  const quiet = config.supervisor !== undefined && scope !== 'all';
  for (const line of info) logger.log(quiet ? 'debug' : 'info', line);
  for (const line of warn) logger.log(quiet ? 'debug' : 'warn', line);
}

/** Where this machine reaches the API: the address it listens on, or loopback when that is every interface. */
export function localApiUrl(config: Config): string {
  const everywhere = config.host === '0.0.0.0' || config.host === '::';
  const host = everywhere ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

const ANSWER_POLL_MS = 250;

/**
 * Resolves true once `url` answers 2xx, asking every 250 ms while `keepAsking()` holds (then
 * false): the addresses a start prints are for clicking, so they wait for the API to answer.
 */
export async function untilAnswering(url: string, keepAsking: () => boolean, headers: Record<string, string> = {}): Promise<boolean> {
  while (keepAsking()) {
    const ok = await fetch(url, { headers, signal: AbortSignal.timeout(2_000) }).then(
      (res) => {
        void res.body?.cancel();
        return res.ok;
      },
      () => false,
    );
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, ANSWER_POLL_MS).unref());
  }
  return false;
}
