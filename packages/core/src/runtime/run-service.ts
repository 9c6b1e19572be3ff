import type { Config } from '../config/config.js';
import { createRuntime, type Runtime } from './bootstrap.js';
import { startUp } from './start-up.js';

export interface Service {
  stop(): Promise<void>;
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
