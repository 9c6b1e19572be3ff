import { ConfigError, loadConfig, SUPERVISED_ENV, type Config } from '../config/config.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { prepareDatabase, type BootstrapRole } from './prepare-database.js';
import { resolveStores, type Stores } from './resolve-stores.js';

export { SUPERVISED_ENV };

export function serviceLogger(config: Config, service: string): Logger {
  return createLogger({ level: config.logLevel, production: config.nodeEnv === 'production', service });
}

/**
 * Reports a configuration problem and exits 78 (EX_CONFIG); returns for other errors. Through
 * the logger once there is one, so that it reaches the logs as JSON in production.
 */
export function exitOnConfigError(error: unknown, logger?: Logger): void {
  if (!(error instanceof ConfigError)) return;
  if (logger) logger.error(error.message);
  else process.stderr.write(`${error.message}\n`);
  process.exit(78);
}

/**
 * What every process does before it starts an app: validate the configuration, find (or start)
 * the database and the queue store, say which, and create/migrate the database. Exits 78 on a
 * configuration problem, an unreachable store or a database migrated by a newer version, 1 when a
 * migration fails.
 * `bootstrapToken` says what this process does with BOOTSTRAP_API_TOKEN (`apply` unless told; see BootstrapRole). `starting` is a
 * line said first, before the stores are looked for: what the start is about to do.
 */
export async function startUp(
  name: string,
  options: { bootstrapToken?: (config: Config) => BootstrapRole; starting?: (config: Config) => string } = {},
): Promise<{ config: Config; logger: Logger; stores: Stores }> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    exitOnConfigError(error);
    throw error;
  }
  const logger = serviceLogger(config, name);
  if (options.starting) logger.info(options.starting(config));
  let stores: Stores;
  try {
    stores = await resolveStores(config, logger);
  } catch (error) {
    exitOnConfigError(error);
    throw error;
  }
  for (const line of stores.lines) logger.log(process.env[SUPERVISED_ENV] ? 'debug' : 'info', line);
  try {
    await prepareDatabase(stores.config, logger, { bootstrapToken: options.bootstrapToken?.(stores.config) ?? 'apply' });
  } catch (error) {
    await stores.stop();
    exitOnConfigError(error, logger);
    logger.error('database preparation failed', { error: (error as Error).message });
    process.exit(1);
  }
  return { config: stores.config, logger, stores };
}
