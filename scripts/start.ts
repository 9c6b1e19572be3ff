// `npm start`: find or start the database and the queue store, migrate once, then run the API
// and the three workers, either as child processes under this supervisor (default) or all in
// this process (ALL_IN_ONE=1). An embedded PostgreSQL is started here, once, and its URL handed
// to the children.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  announce,
  childNodeOptions,
  countStops,
  HAND_BACK_MS,
  localApiUrl,
  startUp,
  stopNotice,
  stoppedNotice,
  stopOnSignals,
  storesEnv,
  untilAnswering,
} from '@cronsvc/core/start-up';
import { whenParentGone } from './supervisor/parent.js';
import { allInOneNotifierId, allInOneSignals, newSupervisorId, superviseChildren } from './supervisor/signals.js';

const APPS = ['api', 'scheduler', 'executor', 'notifier'] as const;
type App = (typeof APPS)[number];
const here = path.dirname(fileURLToPath(import.meta.url));
// Compiled by `npm run build`, this file is scripts/dist/start.js, and its children run compiled too.
const compiled = path.basename(here) === 'dist';
const root = path.resolve(here, compiled ? '../..' : '..');
/** The node arguments that run an app: its compiled JavaScript, or its TypeScript through tsx's loader. */
const appArgs = (name: string) =>
  compiled ? [path.join(root, 'apps', name, 'dist', 'main.js')] : ['--import', 'tsx', path.join(root, 'apps', name, 'src', 'main.ts')];
// Past the children's own grace period (STOP_GRACE_SECONDS), this long for them to hand their
// work back and close; a child still there then is killed.
const STOP_BACKSTOP_MS = 15_000;

// Split, the API owns BOOTSTRAP_API_TOKEN: this process then never loads Prisma.
const { config, logger, stores } = await startUp('supervisor', {
  bootstrapToken: (c) => (c.allInOne ? 'own' : 'leave'),
  // The addresses come once the API answers, which takes a while on a first start.
  starting: (c) =>
    `starting: migrating, starting ${APPS.length} apps (${APPS.join(', ')})${c.allInOne ? ' in this process' : ''}; the addresses follow once the API answers`,
});
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
  const services = [await startApi(runtime), await startScheduler(runtime), startExecutor(runtime), startNotifier(runtime, { workerId: allInOneNotifierId(runtime) })];
  const signals = await allInOneSignals(runtime);
  announce(logger, runtime.config, 'all');
  // The API stops first so no new work arrives while the workers drain.
  const stop = stopOnSignals({
    logger,
    graceMs: config.stopGraceMs,
    services,
    async close() {
      await signals.stop();
      await runtime.close();
      await stores.stop();
    },
  });
  whenParentGone(() => stop('parent exited'));
} else {
  const children = new Map<string, ChildProcess>();
  const signals = superviseChildren(supervisorId, config.databaseUrl, logger);
  // The children use the stores decided here: the embedded server's URL, the queue backend.
  const childEnv = { ...process.env, ...storesEnv(stores), ...signals.env };
  const envOf = (name: App) => ({
    ...childEnv,
    // Flags the operator puts in NODE_OPTIONS come after the service's own, so theirs win.
    NODE_OPTIONS: `${childNodeOptions(name)} ${process.env.NODE_OPTIONS ?? ''}`.trim(),
    // Only the API applies BOOTSTRAP_API_TOKEN, so the workers load Prisma when their work needs it.
    ...(name === 'api' ? {} : { BOOTSTRAP_API_TOKEN: '' }),
  });
  // Once the children are gone, the embedded PostgreSQL (if this process started it) goes too;
  // then the last line says the service stopped.
  const exit = (code: number) =>
    void signals.close().finally(() =>
      stores.stop().finally(() => {
        logger.info(stoppedNotice(code));
        process.exit(code);
      }),
    );
  let stopping = false;
  let abandoned = false;
  const launch = (name: App, restarts: number) => {
    // node itself, not the tsx command, which would add a relay process per app.
    const child = spawn(process.execPath, appArgs(name), { cwd: root, stdio: signals.stdio, env: envOf(name) });
    children.set(name, child);
    signals.adopt(child);
    const startedAt = Date.now();
    child.on('exit', (code, signal) => {
      children.delete(name);
      if (stopping) {
        if (children.size === 0) exit(abandoned ? 130 : 0);
        return;
      }
      // 0 and 130 are an app's ends after a stop: someone stopped that one process, which is a
      // stop of the service, not a crash to restart.
      if (code === 0 || code === 130) {
        logger.info('an app was stopped; stopping the others', { app: name, code });
        trigger(`${name} stopped`);
        return;
      }
      // A crash is restarted with growing delay; a process that ran a minute starts the count afresh.
      const count = Date.now() - startedAt > 60_000 ? 0 : restarts + 1;
      const delay = Math.min(30_000, 500 * 2 ** count);
      logger.error('process exited; restarting', { app: name, code, signal, inMs: delay });
      // A stop during the delay leaves it down.
      setTimeout(() => {
        if (!stopping) launch(name, count);
      }, delay);
    });
  };
  const killAll = (code: number) => {
    for (const child of children.values()) child.kill('SIGKILL');
    exit(code);
  };

  // Each child finishes its work in flight (docs/RELIABILITY.md, "Stopping the service"); the
  // signal passed on reaches a child that Ctrl-C reached too within SAME_STOP_MS, which the
  // child counts as the same stop.
  const stopService = (reason: string) => {
    stopping = true;
    logger.info(stopNotice(config.stopGraceMs, undefined), { reason });
    if (children.size === 0) return exit(0);
    for (const child of children.values()) child.kill('SIGTERM');
    setTimeout(() => killAll(1), config.stopGraceMs + STOP_BACKSTOP_MS).unref();
  };
  let insisted = false;
  const trigger = countStops({
    stop: stopService,
    insist: (reason) => {
      if (insisted) return killAll(130);
      insisted = abandoned = true;
      logger.warn('stopping at once; the apps hand their work in flight back', { reason });
      if (children.size === 0) return exit(130);
      // A second signal to each child: it hands its work back and exits 130.
      for (const child of children.values()) child.kill('SIGINT');
      setTimeout(() => killAll(130), HAND_BACK_MS + 2_000).unref();
    },
  });
  whenParentGone(() => trigger('parent exited'));
  for (const name of APPS) launch(name, 0);
  // The addresses are for clicking: they are printed once the API answers (a restarted API too).
  void untilAnswering(`${localApiUrl(config)}/healthz`, () => !stopping).then((answered) => {
    if (answered) announce(logger, config, 'all');
  });
}
