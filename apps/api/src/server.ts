import type { Server } from 'node:http';
import type { Runtime } from '@cronsvc/core';
import { createApp } from './app.js';

/** Listens on HOST:PORT (every interface unless HOST says otherwise); stop() finishes requests in flight. */
export async function startApi(runtime: Runtime): Promise<{ server: Server; stop(): Promise<void> }> {
  const app = createApp(runtime);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(runtime.config.port, runtime.config.host, () => resolve(s));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  runtime.logger.info('api listening', { host: runtime.config.host, port: runtime.config.port, publicBaseUrl: runtime.config.publicBaseUrl });
  return {
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
