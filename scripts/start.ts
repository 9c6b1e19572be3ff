// `npm start`: find or start the database and the queue store, migrate once, then run the API
// and the three workers, either as child processes under this supervisor (default) or all in
// this process (ALL_IN_ONE=1). An embedded PostgreSQL is started here, once, and its URL handed
// to the children.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { announce, CHILD_NODE_OPTIONS, startUp, storesEnv } from '@cronsvc/core/start-up';
import { allInOneSignals, newSupervisorId, superviseChildren } from './supervisor/signals.js';

const APPS = ['api', 'scheduler', 'executor', 'notifier'] as const;
const here = path.dirname(fileURLToPath(import.meta.url));
// Compiled by `npm run build`, this file is scripts/dist/start.js, and its children run compiled too.
const compiled = path.basename(here) === 'dist';
const root = path.resolve(here, compiled ? '../..' : '..');
/** The node arguments that run an app: its compiled JavaScript, or its TypeScript through tsx's loader. */
const appArgs = (name: string) =>
  compiled ? [path.join(root, 'apps', name, 'dist', 'main.js')] : ['--import', 'tsx', path.join(root, 'apps', name, 'src', 'main.ts')];
const STOP_GRACE_MS = 30_000;

// Split, the API applies BOOTSTRAP_API_TOKEN: this process then never loads Prisma.
const { config, logger, stores } = await startUp('supervisor', { bootstrapToken: (c) => c.allInOne });
const supervisorId = newSupervisorId();

if (config.allInOne) {
  const [{ createRuntime }, { startApi }, { startScheduler }, { startExecutor }, { startNotifier }] = await Promise.all([
    import('@cronsvc/core'),
    import('@cronsvc/api'),
    import('@cronsvc/scheduler'),
    import('@cronsvc/executor'),
    import('@cronsvc/notifier'),
  ]);
  const runtime = createRuntime({ ...config, supervisor: supervisorId }, logger, { dbPoolSize: 40 });
  const services = [await startApi(runtime), await startScheduler(runtime), startExecutor(runtime), startNotifier(runtime)];
  const signals = await allInOneSignals(runtime);
  announce(logger, runtime.config, 'all');
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(130);
    stopping = true;
    // The API stops first so no new work arrives while the workers drain.
    for (const service of services) await service.stop();
    await signals.stop();
    await runtime.close();
    await stores.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
} else {
  const children = new Map<string, ChildProcess>();
  const signals = superviseChildren(supervisorId, config.databaseUrl, logger);
  // Flags the operator puts in NODE_OPTIONS come after the service's own, so theirs win.
  const nodeOptions = `${CHILD_NODE_OPTIONS} ${process.env.NODE_OPTIONS ?? ''}`.trim();
  // The children use the stores decided here: the embedded server's URL, the queue backend.
  const childEnv = { ...process.env, ...storesEnv(stores), ...signals.env, NODE_OPTIONS: nodeOptions };
  // Only the API applies BOOTSTRAP_API_TOKEN, so the workers load Prisma when their work needs it.
  const envOf = (name: string) => (name === 'api' ? childEnv : { ...childEnv, BOOTSTRAP_API_TOKEN: '' });
  // Once the children are gone, the embedded PostgreSQL (if this process started it) goes too.
  const exit = (code: number) => void signals.close().finally(() => stores.stop().finally(() => process.exit(code)));
  let stopping = false;
  const launch = (name: string, restarts: number) => {
    // node itself, not the tsx command, which would add a relay process per app.
    const child = spawn(process.execPath, appArgs(name), { cwd: root, stdio: signals.stdio, env: envOf(name) });
    children.set(name, child);
    signals.adopt(child);
    const startedAt = Date.now();
    child.on('exit', (code, signal) => {
      children.delete(name);
      if (stopping) {
        if (children.size === 0) exit(0);
        return;
      }
      // A crash is restarted with growing delay; a process that ran a minute starts the count afresh.
      const count = Date.now() - startedAt > 60_000 ? 0 : restarts + 1;
      const delay = Math.min(30_000, 500 * 2 ** count);
      logger.error('process exited; restarting', { app: name, code, signal, inMs: delay });
      setTimeout(() => launch(name, count), delay);
    });
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      for (const child of children.values()) child.kill('SIGKILL');
      exit(130);
      return;
    }
    stopping = true;
    logger.info('stopping', { signal });
    if (children.size === 0) exit(0);
    for (const child of children.values()) child.kill('SIGTERM');
    setTimeout(() => {
      for (const child of children.values()) child.kill('SIGKILL');
      exit(1);
    }, STOP_GRACE_MS).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  for (const name of APPS) launch(name, 0);
  announce(logger, config, 'all');
}
