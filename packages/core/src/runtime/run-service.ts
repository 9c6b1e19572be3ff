import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { createRuntime, prepareDatabase, serviceLogger, type Runtime } from './bootstrap.js';

export interface Service {
  stop(): Promise<void>;
}

/**
 * The life of one process: validate config, migrate, start the service, and on SIGINT or
 * SIGTERM stop it (finishing work in flight) before closing connections. A second signal
 * exits at once.
 */
export async function runService(name: string, start: (runtime: Runtime) => Promise<Service> | Service, options: { dbPoolSize?: (config: Config) => number } = {}): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = serviceLogger(config, name);
  try {
    await prepareDatabase(config, logger);
  } catch (error) {
    logger.error('database preparation failed', { error: (error as Error).message });
    process.exit(1);
  }
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
      process.exit(0);
    } catch (error) {
      logger.error('unclean stop', { error: (error as Error).message });
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
