import Joi from 'joi';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MESSAGE_PREFERENCES } from '../validation/messages.js';

export type QueueBackendName = 'redis' | 'postgres';
export type QueueBackendChoice = QueueBackendName | 'auto';

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/cron_service';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** `DATABASE_URL=embedded` asks for the embedded PostgreSQL whatever answers at the default address. */
export const EMBEDDED_DATABASE = 'embedded';

/**
 * Set by the supervisor (`npm start`) for its children, to its id: they leave the start-up lines
 * to it, and their heartbeats name it, so the API's readiness can find its sibling workers.
 */
export const SUPERVISED_ENV = 'CRONSVC_SUPERVISED';

export interface Config {
  readonly nodeEnv: string;
  readonly port: number;
  /** The address the API listens on (HOST): 0.0.0.0, every interface, unless set. */
  readonly host: string;
  /**
   * The database: a postgres URL, or the literal `embedded` until `resolveStores` has started
   * the embedded server and put its URL here.
   */
  readonly databaseUrl: string;
  /** Whether DATABASE_URL was given; unset, an embedded server stands in when nothing answers at the default. */
  readonly databaseUrlSet: boolean;
  /** Connections of this process's database pool; undefined: each app's own default (docs/OPERATIONS.md). */
  readonly databasePoolSize: number | undefined;
  /** Data directory of the embedded PostgreSQL. */
  readonly embeddedPgDir: string;
  readonly redisUrl: string;
  /** Whether REDIS_URL was given: then the queues are on Redis unless QUEUE_BACKEND says otherwise. */
  readonly redisUrlSet: boolean;
  /** `auto` until `resolveStores` has probed for Redis (QUEUE_BACKEND and REDIS_URL unset). */
  readonly queueBackend: QueueBackendChoice;
  /** Prefix of every Redis key the service writes, so several deployments or test runs share one Redis. */
  readonly redisPrefix: string;
  /** Sentinels (`host:port`) to ask for the master named `redisSentinelMaster`; empty: REDIS_URL's host is the server. */
  readonly redisSentinels: { host: string; port: number }[];
  readonly redisSentinelMaster: string;
  readonly redisSentinelPassword: string | undefined;
  /** REDIS_URL names one node of a Redis Cluster; the prefix is then a hash tag (`{cronsvc}`). */
  readonly redisCluster: boolean;
  readonly publicBaseUrl: string;
  readonly adminToken: string | undefined;
  readonly bootstrapApiToken: string | undefined;
  readonly secretsEncryptionKey: Buffer;
  readonly allowPrivateTargets: boolean;
  readonly smtpUrl: string | undefined;
  /** Sender address of notification emails. */
  readonly smtpFrom: string;
  /** Base URL of the chat_c bot API. */
  readonly chatCApiBase: string;
  readonly executionRetentionDays: number;
  /** How long audit events are kept (AUDIT_RETENTION_DAYS). */
  readonly auditRetentionDays: number;
  readonly logLevel: string;
  readonly allInOne: boolean;
  /** How far ahead the scheduler turns due fires into queued executions. */
  readonly schedulerLookaheadMs: number;
  readonly schedulerTickMs: number;
  /** How often the scheduler re-queues executions that Redis lost. */
  readonly reconcileIntervalMs: number;
  readonly executorConcurrency: number;
  /** Requests of one workspace in flight at once across all executors (fair share); 0 = no limit. */
  readonly workspaceMaxInFlight: number;
  /** The longest a target's Retry-After (429, 503) holds back its host's requests (ms). */
  readonly retryAfterMaxMs: number;
  /** How long before an attempt is due the executor takes it from the queue and holds it. */
  readonly executorPrefetchMs: number;
  /** How long a worker owns an execution before another may take it over. */
  readonly executionLeaseMs: number;
  /** How long an executor's heartbeat may be silent before another executor takes over its work. */
  readonly executorDeadAfterMs: number;
  readonly notifierDeadAfterMs: number;
  /**
   * How long a stop waits for work in flight to finish before handing it back to be run again
   * (docs/RELIABILITY.md, "Stopping the service").
   */
  readonly stopGraceMs: number;
  /** Jobs one workspace may have; creating one more is a 409 limit_exceeded. */
  readonly maxJobsPerWorkspace: number;
  /** Requests per minute one API token may make, shared by all API processes; undefined = no limit. */
  readonly rateLimitPerMinute: number | undefined;
  /**
   * Requests per minute to one public token (trigger, resume, approval, ping), or with unknown
   * tokens from one client address, shared by all API processes; undefined = no limit (set to 0).
   */
  readonly publicRateLimitPerMinute: number | undefined;
  /** Notification messages (channel deliveries) one workspace may send per minute; more wait for the next minute. */
  readonly deliveryRateLimitPerMinute: number;
  /** Console sign-in attempts per minute from one client address, shared by all API processes; undefined = no limit (set to 0). */
  readonly consoleSignInPerMinute: number | undefined;
  /** Bytes of job definitions, secrets and trigger inputs one workspace may store; more is refused. */
  readonly maxStoredBytesPerWorkspace: number;
  /** Port of /healthz, /readyz and /metrics of a worker started on its own; undefined = none. */
  readonly healthPort: number | undefined;
  /** Readiness fails when a due fire is later than this (seconds). */
  readonly readyMaxFireLagSeconds: number;
  /** A fire whose first request went out more than this after its due time is `late` in the fire ledger (ms). */
  readonly fireLateAfterMs: number;
  /** Whether the queue dashboard may change the queues (retry, promote, remove, clean); read-only otherwise. */
  readonly queueDashboardActions: boolean;
  /**
   * The `npm start` supervisor (or ALL_IN_ONE process) this process belongs to, set by it for its
   * children; undefined for an app started on its own.
   */
  readonly supervisor: string | undefined;
  /**
   * Where spans are sent (OTLP/HTTP): OTEL_EXPORTER_OTLP_ENDPOINT with the traces path; undefined
   * when it is unset, and then tracing is off and the SDK is never loaded (docs/OPERATIONS.md, "Traces").
   */
  readonly otlpTracesUrl: string | undefined;
  /** Headers of every export (OTEL_EXPORTER_OTLP_HEADERS: an API key of a hosted backend). */
  readonly otlpHeaders: Readonly<Record<string, string>>;
  /** The resource's `service.name` (OTEL_SERVICE_NAME); undefined: `cronsvc-<app>`. */
  readonly otelServiceName: string | undefined;
}

const postgresUrl = Joi.string().uri({ scheme: ['postgres', 'postgresql'] });
// The OpenTelemetry form: comma-separated name=value pairs, values percent-encoded.
const OTLP_HEADERS = /^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=[^,]*(,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=[^,]*)*$/;

/** OTEL_EXPORTER_OTLP_HEADERS as an object; a value that is not valid percent-encoding is taken as written. */
function otlpHeaders(value: string | undefined): Record<string, string> {
  if (!value) return {};
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  return Object.fromEntries(
    value.split(',').map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at).trim(), decode(pair.slice(at + 1).trim())];
    }),
  );
}
const MAKE_KEY = 'make one with: openssl rand -base64 32';

const schema = Joi.object({
  NODE_ENV: Joi.string().default('development'),
  PORT: Joi.number().integer().min(0).max(65535).default(3000),
  HOST: Joi.string().hostname().default('0.0.0.0'),
  DATABASE_URL: Joi.string().custom((value: string, helpers) =>
    value === EMBEDDED_DATABASE || !postgresUrl.validate(value).error
      ? value
      : helpers.message({ custom: `must be a postgres:// or postgresql:// URL, or ${EMBEDDED_DATABASE} for the embedded PostgreSQL` }),
  ),
  DATABASE_POOL_SIZE: Joi.number().integer().min(1).max(1000),
  EMBEDDED_PG_DIR: Joi.string(),
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
  QUEUE_BACKEND: Joi.string().valid('redis', 'postgres'),
  REDIS_PREFIX: Joi.string().pattern(/^[A-Za-z0-9_:.{}-]+$/),
  REDIS_SENTINELS: Joi.string().pattern(/^[^,:\s]+:\d+(,[^,:\s]+:\d+)*$/).messages({ 'string.pattern.base': 'must be host:port[,host:port...]' }),
  REDIS_SENTINEL_MASTER: Joi.string().default('mymaster'),
  REDIS_SENTINEL_PASSWORD: Joi.string(),
  REDIS_CLUSTER: Joi.boolean().truthy('1').falsy('0').default(false),
  PUBLIC_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  ADMIN_TOKEN: Joi.string().min(1),
  BOOTSTRAP_API_TOKEN: Joi.string().min(1),
  SECRETS_ENCRYPTION_KEY: Joi.string().custom((value: string, helpers) =>
    /^[A-Za-z0-9+/]*={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32 ? value : helpers.message({ custom: `must be 32 bytes, base64-encoded; ${MAKE_KEY}` }),
  ),
  ALLOW_PRIVATE_TARGETS: Joi.boolean().truthy('1').falsy('0').default(false),
  SMTP_URL: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
  SMTP_FROM: Joi.string().max(320).pattern(/^[^\r\n]*$/),
  CHAT_C_API_BASE: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://api.telegram.org'),
  EXECUTION_RETENTION_DAYS: Joi.number().integer().min(1).max(3650).default(30),
  AUDIT_RETENTION_DAYS: Joi.number().integer().min(1).max(36500).default(365),
  LOG_LEVEL: Joi.string().valid('error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly', 'silent').default('info'),
  ALL_IN_ONE: Joi.boolean().truthy('1').falsy('0').default(false),
  SCHEDULER_LOOKAHEAD_MS: Joi.number().integer().min(0).max(60_000).default(5_000),
  SCHEDULER_TICK_MS: Joi.number().integer().min(10).max(60_000).default(500),
  RECONCILE_INTERVAL_MS: Joi.number().integer().min(100).max(600_000).default(5_000),
  EXECUTOR_CONCURRENCY: Joi.number().integer().min(1).max(1000).default(200),
  // 0 turns fair share off.
  WORKSPACE_MAX_IN_FLIGHT: Joi.number().integer().min(0).max(100_000).default(50),
  RETRY_AFTER_MAX_SECONDS: Joi.number().integer().min(0).max(86_400).default(600),
  EXECUTOR_PREFETCH_MS: Joi.number().integer().min(0).max(60_000).default(3_000),
  EXECUTION_LEASE_MS: Joi.number().integer().min(1_000).max(600_000).default(30_000),
  // At least two heartbeats (HEARTBEAT_INTERVAL_MS) must be missed before a worker counts as dead.
  EXECUTOR_DEAD_AFTER_MS: Joi.number().integer().min(2_000).max(600_000).default(3_000),
  NOTIFIER_DEAD_AFTER_MS: Joi.number().integer().min(2_000).max(600_000).default(3_000),
  STOP_GRACE_SECONDS: Joi.number().integer().min(0).max(3_600).default(30),
  MAX_JOBS_PER_WORKSPACE: Joi.number().integer().min(1).max(1_000_000_000).default(100_000),
  RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).max(1_000_000),
  PUBLIC_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(0).max(1_000_000).default(1200),
  DELIVERY_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).max(10_000_000).default(600),
  CONSOLE_SIGN_IN_PER_MINUTE: Joi.number().integer().min(0).max(1_000_000).default(20),
  MAX_STORED_BYTES_PER_WORKSPACE: Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).default(1024 ** 3),
  HEALTH_PORT: Joi.number().integer().min(1).max(65535),
  READY_MAX_FIRE_LAG_SECONDS: Joi.number().integer().min(1).max(86_400).default(60),
  FIRE_LATE_AFTER_SECONDS: Joi.number().integer().min(1).max(86_400).default(60),
  QUEUE_DASHBOARD_ACTIONS: Joi.boolean().truthy('1').falsy('0').default(false),
  [SUPERVISED_ENV]: Joi.string().pattern(/^[A-Za-z0-9_.:-]{1,100}$/),
  OTEL_EXPORTER_OTLP_ENDPOINT: Joi.string().uri({ scheme: ['http', 'https'] }),
  OTEL_EXPORTER_OTLP_HEADERS: Joi.string()
    .pattern(OTLP_HEADERS)
    .messages({ 'string.pattern.base': 'must be name=value[,name=value...] (values URL-encoded)' }),
  OTEL_SERVICE_NAME: Joi.string().max(200),
}).unknown(true);

// Tokens that guard the admin API and a whole workspace; in production one short enough to guess
// is refused at start-up rather than accepted.
const MIN_PRODUCTION_TOKEN_LENGTH = 32;

export class ConfigError extends Error {}

function loadDevKey(keyFile: string): Buffer {
  if (existsSync(keyFile)) return Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
  const key = randomBytes(32);
  mkdirSync(path.dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, key.toString('base64') + '\n', { mode: 0o600 });
  return key;
}

/**
 * Reads and validates the environment once, reporting every bad variable together.
 * `devKeyFile` is where a development encryption key is kept when none is configured.
 */
// At the repository root, whichever directory an app is started from.
const LOCAL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../.local');
const DEFAULT_DEV_KEY_FILE = path.join(LOCAL_DIR, 'secrets.key');
export const DEFAULT_EMBEDDED_PG_DIR = path.join(LOCAL_DIR, 'postgres');

export function loadConfig(env: NodeJS.ProcessEnv = process.env, devKeyFile = DEFAULT_DEV_KEY_FILE): Config {
  const blank = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const { value, error } = schema.validate(blank, { ...MESSAGE_PREFERENCES, abortEarly: false, convert: true });
  const problems = error ? error.details.map((d) => `${d.path.join('.')}: ${d.message}`) : [];
  const key: Buffer | undefined = value.SECRETS_ENCRYPTION_KEY ? Buffer.from(value.SECRETS_ENCRYPTION_KEY, 'base64') : undefined;
  if (!blank.SECRETS_ENCRYPTION_KEY && value.NODE_ENV === 'production') {
    problems.push(`SECRETS_ENCRYPTION_KEY: is required when NODE_ENV=production; ${MAKE_KEY}`);
  }
  if (value.NODE_ENV === 'production') {
    for (const name of ['ADMIN_TOKEN', 'BOOTSTRAP_API_TOKEN']) {
      const token = value[name] as string | undefined;
      if (token !== undefined && token.length < MIN_PRODUCTION_TOKEN_LENGTH) {
        problems.push(`${name}: must be at least ${MIN_PRODUCTION_TOKEN_LENGTH} characters long when NODE_ENV=production (it is ${token.length}); ${MAKE_KEY}`);
      }
    }
  }
  // Redis Cluster keeps each key in the slot its name hashes to; BullMQ's scripts touch several
  // keys of a queue at once, which Cluster allows only within one slot: a prefix in braces hashes
  // every key of the service to the same slot.
  if (value.REDIS_CLUSTER && value.REDIS_PREFIX !== undefined && !/^\{[^{}]+\}/.test(value.REDIS_PREFIX)) {
    problems.push('REDIS_PREFIX: must start with a hash tag in braces, such as {cronsvc}, when REDIS_CLUSTER=true');
  }
  if (value.REDIS_CLUSTER && value.REDIS_SENTINELS) problems.push('REDIS_CLUSTER: cannot be used with REDIS_SENTINELS (a Cluster is found from REDIS_URL)');
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return Object.freeze({
    nodeEnv: value.NODE_ENV,
    port: value.PORT,
    host: value.HOST,
    databaseUrl: value.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    databaseUrlSet: value.DATABASE_URL !== undefined,
    databasePoolSize: value.DATABASE_POOL_SIZE,
    embeddedPgDir: path.resolve(value.EMBEDDED_PG_DIR ?? DEFAULT_EMBEDDED_PG_DIR),
    redisUrl: value.REDIS_URL ?? DEFAULT_REDIS_URL,
    redisUrlSet: value.REDIS_URL !== undefined,
    queueBackend: value.QUEUE_BACKEND ?? (value.REDIS_URL !== undefined ? 'redis' : 'auto'),
    redisPrefix: value.REDIS_PREFIX ?? (value.REDIS_CLUSTER ? '{cronsvc}' : 'cronsvc'),
    redisSentinels: (value.REDIS_SENTINELS ?? '')
      .split(',')
      .filter(Boolean)
      .map((hostPort: string) => ({ host: hostPort.slice(0, hostPort.lastIndexOf(':')), port: Number(hostPort.slice(hostPort.lastIndexOf(':') + 1)) })),
    redisSentinelMaster: value.REDIS_SENTINEL_MASTER,
    redisSentinelPassword: value.REDIS_SENTINEL_PASSWORD,
    redisCluster: value.REDIS_CLUSTER,
    publicBaseUrl: (value.PUBLIC_BASE_URL ?? `http://localhost:${value.PORT}`).replace(/\/+$/, ''),
    adminToken: value.ADMIN_TOKEN,
    bootstrapApiToken: value.BOOTSTRAP_API_TOKEN,
    secretsEncryptionKey: key ?? loadDevKey(devKeyFile),
    allowPrivateTargets: value.ALLOW_PRIVATE_TARGETS,
    smtpUrl: value.SMTP_URL,
    smtpFrom: value.SMTP_FROM ?? `cron-service <notifications@${new URL(value.PUBLIC_BASE_URL ?? 'http://localhost').hostname}>`,
    chatCApiBase: value.CHAT_C_API_BASE.replace(/\/+$/, ''),
    executionRetentionDays: value.EXECUTION_RETENTION_DAYS,
    auditRetentionDays: value.AUDIT_RETENTION_DAYS,
    logLevel: value.LOG_LEVEL,
    allInOne: value.ALL_IN_ONE,
    schedulerLookaheadMs: value.SCHEDULER_LOOKAHEAD_MS,
    schedulerTickMs: value.SCHEDULER_TICK_MS,
    reconcileIntervalMs: value.RECONCILE_INTERVAL_MS,
    executorConcurrency: value.EXECUTOR_CONCURRENCY,
    workspaceMaxInFlight: value.WORKSPACE_MAX_IN_FLIGHT,
    retryAfterMaxMs: value.RETRY_AFTER_MAX_SECONDS * 1_000,
    executorPrefetchMs: value.EXECUTOR_PREFETCH_MS,
    executionLeaseMs: value.EXECUTION_LEASE_MS,
    executorDeadAfterMs: value.EXECUTOR_DEAD_AFTER_MS,
    notifierDeadAfterMs: value.NOTIFIER_DEAD_AFTER_MS,
    stopGraceMs: value.STOP_GRACE_SECONDS * 1_000,
    maxJobsPerWorkspace: value.MAX_JOBS_PER_WORKSPACE,
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    publicRateLimitPerMinute: value.PUBLIC_RATE_LIMIT_PER_MINUTE === 0 ? undefined : value.PUBLIC_RATE_LIMIT_PER_MINUTE,
    deliveryRateLimitPerMinute: value.DELIVERY_RATE_LIMIT_PER_MINUTE,
    consoleSignInPerMinute: value.CONSOLE_SIGN_IN_PER_MINUTE === 0 ? undefined : value.CONSOLE_SIGN_IN_PER_MINUTE,
    maxStoredBytesPerWorkspace: value.MAX_STORED_BYTES_PER_WORKSPACE,
    healthPort: value.HEALTH_PORT,
    readyMaxFireLagSeconds: value.READY_MAX_FIRE_LAG_SECONDS,
    fireLateAfterMs: value.FIRE_LATE_AFTER_SECONDS * 1_000,
    queueDashboardActions: value.QUEUE_DASHBOARD_ACTIONS,
    supervisor: value[SUPERVISED_ENV],
    // The standard's rule for the base endpoint: the signal's path is appended to it.
    otlpTracesUrl: value.OTEL_EXPORTER_OTLP_ENDPOINT === undefined ? undefined : `${value.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`,
    otlpHeaders: Object.freeze(otlpHeaders(value.OTEL_EXPORTER_OTLP_HEADERS)),
    otelServiceName: value.OTEL_SERVICE_NAME,
  });
}
