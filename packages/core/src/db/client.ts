import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client.js';

export type Db = PrismaClient;
export { Prisma } from './generated/client.js';
export type { Job as JobRow, Execution as ExecutionRow, Attempt as AttemptRow, Workspace as WorkspaceRow } from './generated/client.js';

export function createDb(databaseUrl: string, options: { max?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.max ?? 10 });
  return new PrismaClient({ adapter });
}
