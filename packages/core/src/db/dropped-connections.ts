import type pg from 'pg';

/**
 * A connection the server drops (a restart, a failover, pg_terminate_backend) emits 'error' on its
 * client, and an 'error' event nobody listens to ends the process. The pool listens on idle
 * clients only; a client checked out (a transaction, a held LISTEN) is listened to here from its
 * first connection. The failure still reaches whoever uses the client: its queries are rejected,
 * and the next one on the pool opens a new connection, or fails and is answered as unavailable.
 */
export function outlivingDroppedConnections(pool: pg.Pool): pg.Pool {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
