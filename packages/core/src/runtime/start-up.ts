import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { prepareDatabase } from './prepare-database.js';
import { resolveStores, type Stores } from './resolve-stores.js';

/** Set by the supervisor (`npm start`) for its children, which then leave the start-up lines to it. */
export const SUPERVISED_ENV = 'CRONSVC_SUPERVISED';

export function serviceLogger(config: Config, service: string): Logger {
  return createLogger({ level: config.logLevel, production: config.nodeEnv === 'production', service });
}

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
 * `bootstrapToken: false` leaves BOOTSTRAP_API_TOKEN to the processes it starts.
 */
export async function startUp(name: string, options: { bootstrapToken?: (config: Config) => boolean } = {}): Promise<{ config: Config; logger: Logger; stores: Stores }> {
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
    await prepareDatabase(stores.config, logger, { bootstrapToken: options.bootstrapToken?.(stores.config) ?? true });
  } catch (error) {
    logger.error('database preparation failed', { error: (error as Error).message });
    await stores.stop();
    process.exit(1);
  }
  return { config: stores.config, logger, stores };
}
