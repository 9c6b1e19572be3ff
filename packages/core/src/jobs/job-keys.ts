import { Prisma, type Db } from '../db/client.js';
import { AppError } from '../errors/app-error.js';

type Tx = Prisma.TransactionClient | Db;

/** 409 conflict: another job of the workspace has this key. */
export function keyTaken(key: string): AppError {
  return new AppError('conflict', `another job of this workspace has the key "${key}"`, [{ path: 'key', message: 'is taken by another job' }]);
}

/** Throws keyTaken when a job of the workspace already has `key`. */
export async function checkKeyFree(db: Tx, workspaceId: string, key: string): Promise<void> {
  const found = await db.job.findFirst({ where: { workspaceId, key }, select: { id: true } });
  if (found) throw keyTaken(key);
}

/** Runs a write that sets `key`, answering keyTaken when a concurrent write took it first (the unique index decides). */
export async function keyTakenOnWrite<T>(key: unknown, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (typeof key === 'string' && error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw keyTaken(key);
    throw error;
  }
}
