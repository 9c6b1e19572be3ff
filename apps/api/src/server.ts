import type { Server } from 'node:http';
import type { Runtime } from '@cronsvc/core';
import { createApp } from './app.js';

/** Listens on PORT (all interfaces); stop() finishes requests in flight. */
export async function startApi(runtime: Runtime): Promise<{ server: Server; stop(): Promise<void> }> {
  const app = createApp(runtime);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(runtime.config.port, '0.0.0.0', () => resolve(s));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  runtime.logger.info('api listening', { port: runtime.config.port, publicBaseUrl: runtime.config.publicBaseUrl });
  return {
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
