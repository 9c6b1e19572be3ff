// Throwaway servers of the kinds operators run, each in a temporary folder on a free port, for the
// tests of TLS, Sentinel and Cluster: a PostgreSQL 15 with TLS from /usr/lib/postgresql/15/bin, and
// redis-server as a TLS server, a master with a Sentinel, or a three-node Cluster. The shared
// servers on 5432 and 6379 are never touched. Certificates come from the openssl command: a CA and
// a server certificate for localhost and 127.0.0.1 that it signed.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freePort } from '../src/db/local-host.js';
import { waitFor } from './wait-for.js';

const PG_BIN = '/usr/lib/postgresql/15/bin';

export interface Certificates {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** A CA, and a key and certificate for localhost / 127.0.0.1 signed by it, in `dir`. */
export function makeCertificates(dir: string): Certificates {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=cronsvc test CA', '-keyout', file('ca.key'), '-out', file('ca.pem'));
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', file('server.key'), '-out', file('server.csr'));
  writeFileSync(file('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-days', '2', '-extfile', file('san.ext'), '-out', file('server.pem'));
  return { caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
}

export interface Throwaway {
  port: number;
  dir: string;
  stop(): Promise<void>;
}

function startProcess(command: string, args: string[], options: { uid?: number; gid?: number } = {}): ChildProcess & { output: () => string } {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  return Object.assign(child, { output: () => output });
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, signal);
  const timer = setTimeout(() => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** PostgreSQL refuses to run as root: as root, the server runs as the postgres user. */
function serverUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * A PostgreSQL server that accepts only TLS connections (pg_hba `hostssl`, and `hostnossl ...
 * reject`) with a certificate its own CA signed; users connect without a password (trust).
 */
export async function startTlsPostgres(): Promise<Throwaway & Certificates> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cronsvc-pg-tls-'));
  const user = serverUser();
  const data = path.join(dir, 'data');
  const certificates = makeCertificates(dir);
  if (user.uid !== undefined) {
    chmodSync(dir, 0o755);
    chownSync(dir, user.uid, user.gid!);
    for (const file of Object.values(certificates)) chownSync(file, user.uid, user.gid!);
  }
  chmodSync(certificates.keyFile, 0o600);
  execFileSync(path.join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C'], { stdio: 'pipe', ...user });
  writeFileSync(path.join(data, 'pg_hba.conf'), 'hostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n');
  const port = await freePort();
  const server = startProcess(
    path.join(PG_BIN, 'postgres'),
    ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'ssl=on', '-c', `ssl_cert_file=${certificates.certFile}`, '-c', `ssl_key_file=${certificates.keyFile}`, '-c', 'max_connections=50', '-c', 'fsync=off'],
    user,
  );
  await waitFor(
    async () => {
      const client = new pg.Client({ connectionString: `postgresql://postgres@localhost:${port}/postgres?sslmode=verify-full&sslrootcert=${certificates.caFile}` });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return true;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    { timeoutMs: 30_000, what: () => `the TLS PostgreSQL on ${port}: ${server.output()}` },
  );
  return {
    port,
    dir,
    ...certificates,
    async stop() {
      // SIGINT: fast shutdown.
      await stopProcess(server, 'SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RestartablePostgres {
  port: number;
  /** A URL of a database on it (not created: the service creates its database at start-up). */
  url(database: string): string;
  /** Stops the server as `pg_ctl -m fast stop` does (SIGINT) and waits for it to exit; the data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data, and waits until it takes connections. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  remove(): Promise<void>;
}

/** A plain (no TLS) PostgreSQL server that a test may stop and start again, for Postgres faults. */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cronsvc-pg-'));
  const user = serverUser();
  const data = path.join(dir, 'data');
  if (user.uid !== undefined) {
    chmodSync(dir, 0o755);
    chownSync(dir, user.uid, user.gid!);
  }
  execFileSync(path.join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C'], { stdio: 'pipe', ...user });
  const port = await freePort();
  let server: ReturnType<typeof startProcess> | undefined;
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const start = async () => {
    server = startProcess(
      path.join(PG_BIN, 'postgres'),
      ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=100', '-c', 'fsync=off'],
      user,
    );
    const started = server;
    await waitFor(
      async () => {
        const client = new pg.Client({ connectionString: url('postgres') });
        client.on('error', () => undefined);
        try {
          await client.connect();
          return true;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      { timeoutMs: 30_000, what: () => `PostgreSQL on ${port}: ${started.output()}` },
    );
  };
  await start();
  return {
    port,
    url,
    start,
    async stop() {
      if (server) await stopProcess(server, 'SIGINT');
    },
    async remove() {
      if (server) await stopProcess(server, 'SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * redis-server with these extra arguments (after its configuration file, if any), on a free port
 * (or `port`), in a folder of its own; `ready` says when it answers as wanted.
 */
export async function startRedisServer(
  args: string[] = [],
  options: { port?: number; configFile?: string; ready?: (port: number) => Promise<boolean> } = {},
): Promise<Throwaway> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cronsvc-redis-'));
  const port = options.port ?? (await freePort());
  const server = startProcess('redis-server', [
    ...(options.configFile ? [options.configFile] : []),
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    ...args,
  ]);
  const ready =
    options.ready ??
    (async (p: number) => {
      const probe = new Redis({ port: p, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return (await probe.call('PING').catch((error: Error) => (/NOAUTH/.test(error.message) ? 'PONG' : ''))) === 'PONG';
      } finally {
        probe.disconnect();
      }
    });
  await waitFor(() => ready(port).catch(() => false), { timeoutMs: 20_000, what: () => `redis-server on ${port}: ${server.output()}` });
  return {
    port,
    dir,
    async stop() {
      await stopProcess(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis that takes only TLS connections (`rediss://`), with a certificate of its own CA, and a password. */
export async function startTlsRedis(password: string): Promise<Throwaway & Certificates> {
  const certDir = mkdtempSync(path.join(os.tmpdir(), 'cronsvc-redis-certs-'));
  const certificates = makeCertificates(certDir);
  const tlsPort = await freePort();
  const server = await startRedisServer(
    ['--port', '0', '--tls-port', String(tlsPort), '--tls-cert-file', certificates.certFile, '--tls-key-file', certificates.keyFile, '--tls-ca-cert-file', certificates.caFile, '--tls-auth-clients', 'no', '--requirepass', password],
    {
      port: tlsPort,
      ready: async (p) => {
        const probe = new Redis({ port: p, host: 'localhost', password, tls: { ca: [readFileSync(certificates.caFile)] }, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          return (await probe.ping()) === 'PONG';
        } finally {
          probe.disconnect();
        }
      },
    },
  );
  return {
    ...server,
    ...certificates,
    async stop() {
      await server.stop();
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}

/** A Redis master and one Sentinel watching it under `master`. */
export async function startSentinel(master: string): Promise<{ master: Throwaway; sentinel: Throwaway; stop(): Promise<void> }> {
  const redis = await startRedisServer();
  const sentinelDir = mkdtempSync(path.join(os.tmpdir(), 'cronsvc-sentinel-'));
  const configFile = path.join(sentinelDir, 'sentinel.conf');
  writeFileSync(configFile, `sentinel monitor ${master} 127.0.0.1 ${redis.port} 1\nsentinel down-after-milliseconds ${master} 5000\n`);
  const sentinel = await startRedisServer(['--sentinel'], {
    configFile,
    ready: async (p) => {
      const probe = new Redis({ port: p, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        const answer = (await probe.call('SENTINEL', 'get-master-addr-by-name', master)) as string[] | null;
        return answer?.[1] === String(redis.port);
      } finally {
        probe.disconnect();
      }
    },
  });
  return {
    master: redis,
    sentinel,
    async stop() {
      await sentinel.stop();
      await redis.stop();
      rmSync(sentinelDir, { recursive: true, force: true });
    },
  };
}

/** A Redis Cluster of three masters (no replicas), every slot assigned. */
export async function startCluster(): Promise<{ ports: number[]; stop(): Promise<void> }> {
  const nodes = await Promise.all([0, 1, 2].map(() => startRedisServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000'])));
  const ports = nodes.map((n) => n.port);
  execFileSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], { stdio: 'pipe' });
  await waitFor(
    async () => {
      const probe = new Redis({ port: ports[0], host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return /cluster_state:ok/.test((await probe.call('CLUSTER', 'INFO')) as string);
      } finally {
        probe.disconnect();
      }
    },
    { timeoutMs: 20_000, what: 'the cluster to assign every slot' },
  );
  return {
    ports,
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
    },
  };
}
