// npm passes SIGINT and SIGTERM on to the node it runs through `exec`, but npm killed outright
// would leave the supervisor re-parented, running on with nobody to stop it (docs/RELIABILITY.md,
// "Stopping the service").

const POLL_MS = 500;

/**
 * Under `npm start` (npm sets npm_lifecycle_event), calls `gone` once this process's parent has
 * exited. Started otherwise (Docker, systemd, `node scripts/run.mjs` behind nohup), the parent's
 * lifetime says nothing about the service's, so nothing is watched.
 */
export function whenParentGone(gone: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, POLL_MS);
  timer.unref();
}
