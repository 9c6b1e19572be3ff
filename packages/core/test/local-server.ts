import type net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Listens on a free port of 127.0.0.1. close() ends the connections still open too (keep-alive
 * ones included), so closing never waits on a client that keeps its connection.
 */
export async function listenLocally(server: net.Server): Promise<LocalServer> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
