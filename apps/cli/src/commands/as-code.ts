import type { Command } from 'commander';
import type { ApplyDocument, ApplyInput, ApplyResult } from '@cronsvc/contracts';
import type { CronsvcClient } from '@cronsvc/client';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { UsageError } from '../errors.js';
import { hasChanges, planText } from '../output/plan-view.js';
import { ask, readStdin } from '../prompt.js';
import { example, withContext } from './shared.js';

/**
 * Jobs as code (docs/JOBS-AS-CODE.md): export the keyed jobs as a document, plan a document
 * against the service, apply it. The server decides what changes (POST /v1/jobs/apply with
 * dry_run); the CLI reads and writes files and shows the plan.
 */

/** A document that cannot be read: exit 1 like any failure, so `plan --detailed-exitcode` never takes it for "changes" (2). */
class DocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentError';
  }
}

type Doc = Record<string, unknown>;

/** An apply document from a YAML or JSON file (`-`: stdin); JSON is YAML too, so either parses. */
async function readDocument(file: string): Promise<Doc[]> {
  const name = file === '-' ? 'stdin' : file;
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new DocumentError(`cannot read ${name}: ${(error as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new DocumentError(`${name} is not ${file.endsWith('.json') ? 'JSON' : 'YAML or JSON'}: ${(error as Error).message}`);
  }
  const jobs = (doc as { jobs?: unknown } | null)?.jobs;
  if (!Array.isArray(jobs)) throw new DocumentError(`${name} must hold {jobs: [...]}, as \`cronsvc export\` writes it`);
  return jobs as Doc[];
}

interface PlanFlags {
  file: string;
  prune?: boolean;
  pruneTag?: string;
}

const applyBody = (jobs: Doc[], flags: PlanFlags, dryRun: boolean): ApplyInput => ({
  jobs: jobs as unknown as ApplyInput['jobs'],
  prune: Boolean(flags.prune || flags.pruneTag),
  ...(flags.pruneTag ? { prune_tag: flags.pruneTag } : {}),
  dry_run: dryRun,
});

const byKey = (jobs: Doc[]) => new Map(jobs.map((job) => [String(job.key), job]));

/** The dry run of a document, with what the plan shows beside it: the stored keyed jobs and the given ones by key. */
async function planOf(client: CronsvcClient, jobs: Doc[], flags: PlanFlags) {
  const result = await client.jobs.apply(applyBody(jobs, flags, true));
  const stored = hasChanges(result) ? byKey((await client.jobs.export()).jobs as unknown as Doc[]) : new Map<string, Doc>();
  return { result, stored, given: byKey(jobs) };
}

const planFlags = (command: Command) =>
  command
    .requiredOption('-f, --file <file>', 'the document: YAML or JSON, as `cronsvc export` writes it; - for stdin')
    .option('--prune', 'delete the keyed jobs the document does not give')
    .option('--prune-tag <tag>', 'prune only keyed jobs with this tag (implies --prune)');

const summary = (r: ApplyResult) =>
  `Applied: ${r.created.length} created, ${r.updated.length} changed, ${r.deleted.length} deleted, ${r.unchanged.length} unchanged.`;

export function registerAsCode(program: Command): void {
  const exportCommand = program
    .command('export')
    .description('print every keyed job as an apply document (YAML or JSON), secret references as written')
    .option('--tag <tag>', 'only jobs with this tag')
    .option('--format <format>', 'yaml or json', 'yaml')
    .action(
      withContext(async ({ client, out }, flags: { tag?: string; format: string }) => {
        if (!['yaml', 'json'].includes(flags.format)) throw new UsageError('--format is yaml or json');
        const doc: ApplyDocument = await client.jobs.export(flags.tag);
        out.result(doc, (d) => (flags.format === 'json' ? JSON.stringify(d, null, 2) : toYaml(d).trimEnd()));
      }),
    );
  example(exportCommand, 'cronsvc export > jobs.yaml', 'cronsvc export --tag billing --format json > billing.json');

  const plan = planFlags(program.command('plan').description('show what `apply` would change, as a diff; changes nothing'))
    .option('--detailed-exitcode', 'exit 0 when nothing would change, 2 when something would, 1 on an error')
    .action(
      withContext(async ({ client, out }, flags: PlanFlags & { detailedExitcode?: boolean }) => {
        const { result, stored, given } = await planOf(client, await readDocument(flags.file), flags);
        out.result(result, (r) => planText(out.paint, r, stored, given));
        if (flags.detailedExitcode && hasChanges(result)) process.exitCode = 2;
      }),
    );
  example(plan, 'cronsvc plan -f jobs.yaml', 'cronsvc plan -f jobs.yaml --prune-tag billing --detailed-exitcode');

  const apply = planFlags(program.command('apply').description('make the keyed jobs match the document, in one transaction (asks before deleting)'))
    .option('--yes', 'do not ask before deleting jobs')
    .action(
      withContext(async ({ client, out }, flags: PlanFlags & { yes?: boolean }) => {
        const jobs = await readDocument(flags.file);
        const { result, stored, given } = await planOf(client, jobs, flags);
        if (!hasChanges(result)) return out.result(result, (r) => planText(out.paint, r, stored, given));
        if (!out.json) out.line(planText(out.paint, result, stored, given));
        if (result.deleted.length > 0 && !flags.yes) {
          if (!process.stdin.isTTY) throw new UsageError(`apply would delete ${result.deleted.length} job(s): run it in a terminal to confirm, or pass --yes`);
          const answer = await ask(`Delete ${result.deleted.length} job(s) (${result.deleted.join(', ')})? Type "yes" to apply: `);
          if (answer !== 'yes') throw new DocumentError('apply cancelled: nothing changed');
        }
        const applied = await client.jobs.apply(applyBody(jobs, flags, false));
        out.result(applied, summary);
      }),
    );
  example(apply, 'cronsvc apply -f jobs.yaml', 'cronsvc apply -f billing.yaml --prune-tag billing --yes');
}

/** `cronsvc tags list|pause|resume` (docs/JOBS-AS-CODE.md, "Tags"). */
export function registerTags(program: Command): void {
  const tags = program.command('tags').description("tags of the workspace's jobs: list, pause or resume every job with a tag");
  example(tags, 'cronsvc tags list', 'cronsvc tags pause billing');
  example(
    tags.command('list').description('every tag, with how many jobs carry it').action(
      withContext(async ({ client, out }) => out.result(await client.tags.list(), (l) => l.data.map((t) => `${t.tag}\t${t.jobs}`).join('\n') || 'no tags')),
    ),
    'cronsvc tags list',
  );
  example(
    tags.command('pause <tag>').description('pause every active job with the tag').action(
      withContext(async ({ client, out }, tag: string) => out.result(await client.tags.pause(tag), (c) => `paused ${c.changed} job(s) tagged ${c.tag}`)),
    ),
    'cronsvc tags pause billing',
  );
  example(
    tags.command('resume <tag>').description('resume every paused job with the tag').action(
      withContext(async ({ client, out }, tag: string) => out.result(await client.tags.resume(tag), (c) => `resumed ${c.changed} job(s) tagged ${c.tag}`)),
    ),
    'cronsvc tags resume billing',
  );
}
