import { ConfigError, loadConfig, type Config } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { createRuntime, prepareDatabase, serviceLogger, type Runtime } from './bootstrap.js';
import { resolveStores, type Stores } from './resolve-stores.js';

export interface Service {
  stop(): Promise<void>;
}

/** Set by the supervisor (`npm start`) for its children, which then leave the start-up lines to it. */
export const SUPERVISED_ENV = 'CRONSVC_SUPERVISED';

/** Reports a configuration problem and exits 78 (EX_CONFIG); other errors propagate. */
export function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}

/**
 * What every process does before it starts an app: validate the configuration, find (or start)
 * the database and the queue store, say which, and create/migrate the database. Exits 78 on a
 * configuration problem or an unreachable store, 1 when the migration fails.
 */
export async function startUp(name: string): Promise<{ config: Config; logger: Logger; stores: Stores }> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    exitOnConfigError(error);
  }
  const logger = serviceLogger(config, name);
  let stores: Stores;
  try {
    stores = await resolveStores(config, logger);
  } catch (error) {
    exitOnConfigError(error);
  }
  for (const line of stores.lines) logger.log(process.env[SUPERVISED_ENV] ? 'debug' : 'info', line);
  try {
    await prepareDatabase(stores.config, logger);
  } catch (error) {
    logger.error('database preparation failed', { error: (error as Error).message });
    await stores.stop();
    process.exit(1);
  }
  return { config: stores.config, logger, stores };
}

/**
 * The life of one process: start up, start the service, and on SIGINT or SIGTERM stop it
 * (finishing work in flight) before closing connections and, if this process started it, the
 * embedded PostgreSQL. A second signal exits at once.
 */
export async function runService(name: string, start: (runtime: Runtime) => Promise<Service> | Service, options: { dbPoolSize?: (config: Config) => number } = {}): Promise<void> {
  const { config, logger, stores } = await startUp(name);
  const runtime = createRuntime(config, logger, { dbPoolSize: options.dbPoolSize?.(config) });
  const service = await start(runtime);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    logger.info('stopping', { signal });
    try {
      await service.stop();
      await runtime.close();
      await stores.stop();
      process.exit(0);
    } catch (error) {
      logger.error('unclean stop', { error: (error as Error).message });
      await stores.stop().catch(() => undefined);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
