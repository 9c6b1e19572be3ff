import type { Command } from 'commander';
import type { ApiToken, ApiTokenCreated, AuditEvent, ListEnvelope, TokenScope } from '@cronsvc/contracts';
import { UsageError } from '../errors.js';
import { fetchPages, pageNote, withPaging, type PageFlags } from '../options.js';
import { details, table } from '../output/table.js';
import { relativeTime } from '../output/time.js';
import { done, example, withContext } from './shared.js';

const SCOPES: TokenScope[] = ['full', 'run', 'read'];

const tokensTable = (page: ListEnvelope<ApiToken>) =>
  table(page.data, [
    { header: 'ID', value: (t) => t.id },
    { header: 'NAME', value: (t) => t.name ?? '', max: 30 },
    { header: 'SCOPE', value: (t) => t.scope },
    { header: 'STARTS WITH', value: (t) => (t.prefix ? `${t.prefix}…` : '') },
    { header: 'LAST USED', value: (t) => (t.last_used_at ? relativeTime(t.last_used_at) : 'never') },
    { header: 'EXPIRES', value: (t) => t.expires_at ?? 'never' },
  ]);

const createdText = (t: ApiTokenCreated) =>
  `${details([['ID', t.id], ['Name', t.name], ['Scope', t.scope], ['Expires', t.expires_at ?? 'never'], ['Token', t.api_token]])}\n\nThe token is shown this once: keep it now.`;

export function registerTokens(program: Command): void {
  const tokens = program.command('tokens').description("the workspace's API tokens, each with a scope: full, run or read");
  example(tokens, 'cronsvc tokens create --name dashboard --scope read', 'cronsvc tokens list');

  example(
    tokens
      .command('create')
      .description('make a token (needs a full token); it is printed this once')
      .option('--name <name>', 'what the token is for')
      .option('--scope <scope>', 'full (default), run (read and run) or read (read only)')
      .option('--expires-at <time>', 'an ISO 8601 time after which it is refused')
      .action(
        withContext(async ({ client, out }, flags: { name?: string; scope?: string; expiresAt?: string }) => {
          if (flags.scope !== undefined && !SCOPES.includes(flags.scope as TokenScope)) throw new UsageError(`--scope must be one of ${SCOPES.join(', ')}`);
          const body = { name: flags.name, scope: flags.scope as TokenScope | undefined, expires_at: flags.expiresAt };
          out.result(await client.tokens.create(Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined))), createdText);
        }),
      ),
    'cronsvc tokens create --name "deploy pipeline" --scope run --expires-at 2027-01-01T00:00:00Z',
  );

  const list = withPaging(tokens.command('list').description('list the tokens (never the tokens themselves)')).action(
    withContext(async ({ client, out }, flags: PageFlags) => {
      const page = await fetchPages((q) => client.tokens.list(q), flags);
      out.result(page, (p) => tokensTable(p) + pageNote(p));
    }),
  );
  example(list, 'cronsvc tokens list');

  example(
    tokens
      .command('revoke <id>')
      .description('delete a token: refused at once, and its console sessions end')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.tokens.delete(id), done(`revoked ${id}`)))),
    'cronsvc tokens revoke tok_123',
  );
}

const auditTable = (page: ListEnvelope<AuditEvent>) =>
  table(page.data, [
    { header: 'WHEN', value: (e) => relativeTime(e.created_at) },
    { header: 'ACTION', value: (e) => e.action },
    { header: 'TARGET', value: (e) => e.target_id ?? e.target_type },
    { header: 'BY', value: (e) => [e.actor.type, e.actor.name ?? e.actor.token_id].filter(Boolean).join(' '), max: 40 },
    { header: 'FIELDS', value: (e) => e.changed_fields.join(','), max: 40 },
  ]);

export function registerAudit(program: Command): void {
  const audit = withPaging(
    program
      .command('audit')
      .description('the audit log: every change in the workspace and who made it, newest first')
      .option('--action <action>', 'only this action, e.g. job.updated')
      .option('--target <id>', 'only changes of this object')
      .option('--from <time>', 'from this ISO 8601 time')
      .option('--to <time>', 'up to this ISO 8601 time'),
  ).action(
    withContext(async ({ client, out }, flags: PageFlags & { action?: string; target?: string; from?: string; to?: string }) => {
      const filter = Object.fromEntries(Object.entries({ action: flags.action, target_id: flags.target, from: flags.from, to: flags.to }).filter(([, v]) => v !== undefined));
      const page = await fetchPages((q) => client.audit.list({ ...q, ...filter }), flags);
      out.result(page, (p) => auditTable(p) + pageNote(p));
    }),
  );
  example(audit, 'cronsvc audit --action job.deleted', 'cronsvc audit --target job_123 --json');
}
