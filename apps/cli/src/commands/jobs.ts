import type { Command } from 'commander';
import { CATCH_UP_POLICIES, FIRE_OUTCOMES, JOB_KINDS, JOB_STATES, OVERLAP_POLICIES, STATS_WINDOWS, type FireOutcome, type JobKind, type JobState, type StatsWindow } from '@cronsvc/contracts';
import { collect, fetchPages, int, pageNote, readJsonInput, withPaging, type PageFlags } from '../options.js';
import { readFile } from 'node:fs/promises';
import { readStdin } from '../prompt.js';
import { executionDetails } from '../output/executions-view.js';
import { firesTable, importSummary, jobDetails, jobsTable, statsView } from '../output/jobs-view.js';
import { UsageError } from '../errors.js';
import { jobInput, jobPatch, type JobFlags } from './job-body.js';
import { done, example, withContext } from './shared.js';

/** The request and schedule flags of create and update. */
function jobFlags(command: Command): Command {
  return command
    .option('--name <name>', 'job name')
    .option('--every <minutes>', 'recurring: every N minutes (1 to 1440)', int)
    .option('--cron <expr>', 'cron: a 5-field cron expression (UTC)')
    .option('--at <iso>', 'scheduled: once at this ISO 8601 time')
    .option('--once', 'one_time: once, right away')
    .option('--url <url>', 'the target URL')
    .option('--method <method>', 'GET, POST, PUT, PATCH or DELETE')
    .option('--header <name:value>', 'a request header (repeatable)', collect)
    .option('--body <text>', 'request body (a JSON object or array is sent as JSON)')
    .option('--timeout <seconds>', 'request timeout, 1 to 300', int)
    .option('--max-attempts <n>', 'attempts before the execution fails, 1 to 10', int)
    .option('--jitter <seconds>', 'start each scheduled run up to this many seconds after its slot, 0 to 3600', int)
    .option('--overlap <policy>', `a run due while max_concurrent_executions already run: ${OVERLAP_POLICIES.join(' (wait) or ')} (do not run it)`)
    .option('--catch-up <policy>', `slots missed while the service was down: ${CATCH_UP_POLICIES.join(' (one catch-up run) or ')} (record them only)`)
    .option('--key <key>', 'the job\'s key, unique in the workspace (names it in apply documents)')
    .option('--tag <tag>', 'a tag (repeatable; on update, the tags given replace the job\'s tags)', collect);
}

type ListFlags = PageFlags & { state?: JobState; kind?: JobKind; name?: string; tag?: string[] };

export function registerJobs(program: Command): void {
  const jobs = program.command('jobs').description('request jobs: create, list, change, run');
  example(jobs, 'cronsvc jobs list --state active', 'cronsvc jobs create --name "ping example" --every 5 --url https://example.com/');

  const list = withPaging(jobs.command('list').description('list jobs'))
    .option('--state <state>', `only jobs in this state (${JOB_STATES.join(', ')})`)
    .option('--kind <kind>', `only jobs of this kind (${JOB_KINDS.join(', ')})`)
    .option('--name <text>', 'name contains this text (case-insensitive)')
    .option('--tag <tag>', 'only jobs with this tag (repeatable: every tag given must match)', collect)
    .action(
      withContext(async ({ client, out }, flags: ListFlags) => {
        const page = await fetchPages((q) => client.jobs.list({ ...q, state: flags.state, kind: flags.kind, name: flags.name, tag: flags.tag }), flags);
        out.result(page, (p) => jobsTable(out.paint, p) + pageNote(p));
      }),
    );
  example(list, 'cronsvc jobs list --kind cron --name nightly', 'cronsvc jobs list --tag billing --tag env:prod', 'cronsvc jobs list --all --json | jq -r ".data[].id"');

  example(
    jobs
      .command('get <id>')
      .description('show one job')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.jobs.get(id), (j) => jobDetails(out.paint, j)))),
    'cronsvc jobs get job_123',
  );

  const create = jobFlags(jobs.command('create').description('create a request job from flags or a JSON file'))
    .option('--file <file>', 'the job as JSON (POST /v1/jobs body); - for stdin; flags given too override its fields')
    .action(
      withContext(async ({ client, out }, flags: JobFlags & { file?: string }) => {
        const file = flags.file === undefined ? undefined : await readJsonInput(flags.file);
        if (file !== undefined && (file === null || typeof file !== 'object' || Array.isArray(file))) throw new UsageError('--file must hold a JSON object');
        const job = await client.jobs.create(jobInput(flags, file as Record<string, unknown> | undefined));
        out.result(job, (j) => jobDetails(out.paint, j));
      }),
    );
  example(
    create,
    'cronsvc jobs create --name "ping example" --every 5 --url https://example.com/',
    'cronsvc jobs create --name hook --cron "0 3 * * *" --url https://example.com/hook --method POST --header "Authorization: Bearer {{secret.API_KEY}}" --body \'{"full":true}\'',
    'cronsvc jobs create --name nightly --cron "0 2 * * *" --url https://example.com/nightly --jitter 300 --overlap skip --catch-up none',
    'cronsvc jobs create --file job.json',
    'cronsvc jobs create --name invoices --cron "0 3 * * *" --url https://billing.example.com/run --key billing.invoices --tag billing',
  );

  const update = jobFlags(jobs.command('update <id>').description('change the fields given, and only those (PATCH)'))
    .option('--file <file>', 'a JSON PATCH body; - for stdin; flags given too override its fields')
    .action(
      withContext(async ({ client, out }, id: string, flags: JobFlags & { file?: string }) => {
        const file = flags.file === undefined ? {} : ((await readJsonInput(flags.file)) as Record<string, unknown>);
        const patch = jobPatch(flags, file);
        if (!Object.keys(patch).length) throw new UsageError('nothing to change: give at least one field');
        out.result(await client.jobs.update(id, patch), (j) => jobDetails(out.paint, j));
      }),
    );
  example(update, 'cronsvc jobs update job_123 --every 10', 'cronsvc jobs update job_123 --header "X-Env: prod" --max-attempts 5');

  example(
    jobs
      .command('delete <id>')
      .description('delete a job with its executions and notification rules')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.jobs.delete(id), done(`deleted ${id}`)))),
    'cronsvc jobs delete job_123',
  );
  example(
    jobs
      .command('pause <id>')
      .description('stop an active job from firing')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.jobs.pause(id), (j) => `${j.id} ${out.paint(j.state, 'yellow')}`))),
    'cronsvc jobs pause job_123',
  );
  example(
    jobs
      .command('resume <id>')
      .description('make a paused job active again')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.jobs.resume(id), (j) => `${j.id} ${out.paint(j.state, 'green')}`))),
    'cronsvc jobs resume job_123',
  );
  example(
    jobs
      .command('run <id>')
      .description('run the job now (an execution with source manual; the schedule is unaffected)')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.jobs.runNow(id), (e) => executionDetails(out.paint, e)))),
    'cronsvc jobs run job_123',
  );

  const fires = withPaging(jobs.command('fires <id>').description("the job's expected fires, newest first: fired, late, caught up, missed, skipped"))
    .option('--outcome <outcome>', `only fires with this outcome (${FIRE_OUTCOMES.join(', ')})`)
    .option('--from <iso>', 'slots at or after this time')
    .option('--to <iso>', 'slots at or before this time')
    .action(
      withContext(async ({ client, out }, id: string, flags: PageFlags & { outcome?: FireOutcome; from?: string; to?: string }) => {
        const page = await fetchPages((q) => client.jobs.fires(id, { ...q, outcome: flags.outcome, from: flags.from, to: flags.to }), flags);
        out.result(page, (p) => firesTable(out.paint, p) + pageNote(p));
      }),
    );
  example(fires, 'cronsvc jobs fires job_123', 'cronsvc jobs fires job_123 --outcome missed --json');

  const stats = jobs
    .command('stats <id>')
    .description("the job's executions, success rate and duration percentiles over a window, per hour or day")
    .option('--window <window>', `24h (hourly), 7d or 30d (daily) (${STATS_WINDOWS.join(', ')})`, '24h')
    .action(
      withContext(async ({ client, out }, id: string, flags: { window: StatsWindow }) => {
        out.result(await client.jobs.stats(id, flags.window), (s) => statsView(out.paint, s));
      }),
    );
  example(stats, 'cronsvc jobs stats job_123', 'cronsvc jobs stats job_123 --window 30d --json');

  const importCommand = jobs
    .command('import <file>')
    .description('create cron jobs from a crontab: lines of "<cron expression> <url>"; - reads stdin')
    .option('--default-url <url>', 'the URL of lines that have none')
    .action(
      withContext(async ({ client, out }, file: string, flags: { defaultUrl?: string }) => {
        const crontab = file === '-' ? await readStdin() : await readFile(file, 'utf8');
        out.result(await client.jobs.import(crontab, flags.defaultUrl), (r) => importSummary(out.paint, r));
      }),
    );
  example(importCommand, 'cronsvc jobs import crontab.txt', 'crontab -l | cronsvc jobs import - --default-url https://example.com/hook');
}
