import pg from 'pg';
import { databaseUrl, templateName, testRun, uniqueName } from './test-env.js';

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A throwaway, migrated database of the test file's own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = uniqueName(`cronsvc_test_${testRun}`);
  // Copies of one template cannot start at the same instant; retry while another copy holds it.
  for (let tries = 0; ; tries++) {
    try {
      await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${templateName}`));
      break;
    } catch (error) {
      if (tries > 50 || !/being accessed by other users/.test((error as Error).message)) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    name,
    url: databaseUrl(name),
    drop: () => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}
