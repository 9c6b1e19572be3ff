/**
 * Whether an error carries SQLSTATE `code`, as pg reports it (`code`) or Prisma over the pg
 * adapter does (the driver's error under `meta.driverAdapterError.cause`, `code` or
 * `originalCode`), anywhere in its cause chain.
 */
export function hasSqlState(error: unknown, code: string): boolean {
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 12; seen++) {
    const e = queue.shift() as { code?: unknown; originalCode?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } } | undefined;
    if (!e || typeof e !== 'object') continue;
    if (e.code === code || e.originalCode === code) return true;
    queue.push(e.cause, e.meta?.driverAdapterError);
  }
  return false;
}
