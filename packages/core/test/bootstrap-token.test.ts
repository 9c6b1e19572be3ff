import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { hashToken } from '../src/ids/ids.js';
import { prepareDatabase } from '../src/runtime/prepare-database.js';
import { aToken, useWorkspace } from './factories.js';
import { capturingLogger } from './capturing-logger.js';
import { repoRoot } from './test-context.js';

// BOOTSTRAP_API_TOKEN (docs/CONFIGURATION.md): the token it makes lives as long as the setting.
// A start of the API without it, or with another value, revokes it and says so; a worker started
// alone never revokes; tokens made otherwise are never touched.

const w = useWorkspace();
const db = () => w.ctx.runtime.db;
const accepted = async (token: string) => (await db().apiToken.findUnique({ where: { tokenHash: hashToken(token) } })) !== null;
const configWith = (token: string | undefined) => loadConfig({ ...w.ctx.env, BOOTSTRAP_API_TOKEN: token ?? '' });

it('revokes the token an earlier setting made when the API starts without it, and logs it', async () => {
  const issued = await aToken(w.ctx.runtime, w.workspaceId);
  await prepareDatabase(configWith('dev-token'), capturingLogger().logger, { bootstrapToken: 'own' });
  expect(await accepted('dev-token')).toBe(true);

  // A worker started alone, without the setting, leaves the token be.
  await prepareDatabase(configWith(undefined), capturingLogger().logger, { bootstrapToken: 'apply' });
  expect(await accepted('dev-token')).toBe(true);

  const { logger, entries } = capturingLogger();
  await prepareDatabase(configWith(undefined), logger, { bootstrapToken: 'own' });
  expect(await accepted('dev-token')).toBe(false);
  expect(await accepted(issued.api_token)).toBe(true);
  expect(entries()).toContainEqual(
    expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^revoked 1 API token\(s\) made by an earlier BOOTSTRAP_API_TOKEN .*: BOOTSTRAP_API_TOKEN is not set$/) }),
  );
  expect(JSON.stringify(entries())).not.toContain('dev-token"');

  // Nothing left to revoke: nothing said.
  const again = capturingLogger();
  await prepareDatabase(configWith(undefined), again.logger, { bootstrapToken: 'own' });
  expect(again.lines.join('\n')).not.toMatch(/revoked/);
});

it('keeps the current token and revokes the one an earlier value made', async () => {
  await prepareDatabase(configWith('csk_bootstrap_first'), capturingLogger().logger, { bootstrapToken: 'own' });
  const { logger, entries } = capturingLogger();
  await prepareDatabase(configWith('csk_bootstrap_second'), logger, { bootstrapToken: 'own' });
  expect([await accepted('csk_bootstrap_first'), await accepted('csk_bootstrap_second')]).toEqual([false, true]);
  expect(entries()).toContainEqual(expect.objectContaining({ msg: expect.stringMatching(/BOOTSTRAP_API_TOKEN is another value now$/) }));
  // The same value again changes nothing.
  await prepareDatabase(configWith('csk_bootstrap_second'), capturingLogger().logger, { bootstrapToken: 'own' });
  expect(await accepted('csk_bootstrap_second')).toBe(true);
  await prepareDatabase(configWith(undefined), capturingLogger().logger, { bootstrapToken: 'own' });
});

it("marks a dev-token bootstrapped before tokens were marked, so that it is revoked too", async () => {
  // As a database migrated before the mark existed holds it.
  await db().apiToken.create({ data: { id: 'tok_old_dev', workspaceId: w.workspaceId, tokenHash: hashToken('dev-token') } });
  const migration = readFileSync(path.join(repoRoot, 'prisma/migrations/20261208000000_bootstrap_tokens/migration.sql'), 'utf8');
  const update = /^UPDATE [^;]+;/m.exec(migration)![0];
  await w.ctx.runtime.pool.query(update);
  await prepareDatabase(configWith(undefined), capturingLogger().logger, { bootstrapToken: 'own' });
  expect(await accepted('dev-token')).toBe(false);
});
