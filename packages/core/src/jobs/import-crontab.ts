import type { Actor } from '../access/actor.js';
import { MAX_CRONTAB_LINES, type ImportError, type ImportInput } from '@cronsvc/contracts';
import Joi from 'joi';
import type { JobRow } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { createJob } from './create-job.js';
import { urlSchema } from './job-schema.js';
import { readCommand, type CommandRequest } from './crontab-command.js';

// The job schema's limit on names; see cronJobBody.
const MAX_NAME_LENGTH = 200;

/** The request a line's job makes: a URL alone is a GET; a curl or wget line says more. */
export type LineRequest = { url: string } & Partial<CommandRequest>;

export type CrontabEntry = { line: number; text: string } & ({ expression: string; request: LineRequest } | { error: string });

export interface ImportCrontabResult {
  created: JobRow[];
  errors: ImportError[];
  notes: string[];
}

/** What `notes` may say: with every import that created a job (`utc`), and when a name left part of a URL out (`names`). */
export const IMPORT_NOTES = {
  utc: "Times are UTC: cron ran these lines in the local time of the machine they came from, the service runs every schedule in UTC. If that machine was not on UTC, shift the hour fields (PATCH the job's schedule).",
  names:
    'Job names leave out URL query strings and user:password parts, which often hold a token; the jobs still call the whole URL. Keep a token out of the URL where you can: a header with {{secret.NAME}} hides it in the job too.',
};

/**
 * A URL as a job's name shows it: without the query string, the fragment and the user:password@
 * part, which often carry a token (`?token=abc`) that every list of jobs would otherwise show.
 */
export function urlForName(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)(?:[^@/?#]*@)?([^?#]*)/i.exec(url);
  return match ? `${match[1]}${match[2]}` : url.replace(/[?#].*$/, '');
}

const splitLines = (crontab: string) => crontab.replace(/\r?\n$/, '').split(/\r?\n/);

export const importSchema = Joi.object({
  crontab: Joi.string()
    .allow('')
    .required()
    .custom((value: string, helpers) =>
      splitLines(value).length > MAX_CRONTAB_LINES ? helpers.message({ custom: `must have at most ${MAX_CRONTAB_LINES} lines; split it into several imports` }) : value,
    ),
  default_url: urlSchema,
}).required();

/**
 * Splits a crontab into its job lines. A line is a schedule (5 cron fields, or a macro such as
 * `@hourly`) followed by a URL, a `curl` or `wget` command (whose URL, method, headers and body
 * the job takes), or nothing; any other command, or nothing, becomes a job for `defaultUrl`
 * when one is given. Blank and `#` lines are skipped. Only the shape of a line is checked
 * here; the cron expression and the request are validated by createJob, so an imported job is
 * held to exactly the rules of POST /v1/jobs.
 */
export function parseCrontab(crontab: string, defaultUrl?: string): CrontabEntry[] {
  const entries: CrontabEntry[] = [];
  splitLines(crontab).forEach((text, index) => {
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    entries.push({ line: index + 1, text, ...parseLine(trimmed, defaultUrl) });
  });
  return entries;
}

const SCHEDULE = /^(@\S+|\S+\s+\S+\s+\S+\s+\S+\s+\S+)(?:\s+(.*))?$/;

function parseLine(trimmed: string, defaultUrl: string | undefined): { expression: string; request: LineRequest } | { error: string } {
  // Real crontabs often start with SHELL=... or MAILTO=...; say what they are rather than "bad minute field".
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(trimmed)) return { error: 'environment settings (NAME=value) are not supported' };
  const fieldCount = trimmed.startsWith('@') ? 1 : 5;
  const [, schedule = trimmed, command = ''] = SCHEDULE.exec(trimmed) ?? [];
  if (schedule.split(/\s+/).some((token) => token.includes('://'))) {
    return { error: `expected ${fieldCount === 1 ? 'a macro' : '5 cron fields'} before the URL` };
  }
  const expression = schedule.split(/\s+/).join(' ');
  const withDefault = (why: string) => (defaultUrl === undefined ? { error: why } : { expression, request: { url: defaultUrl } });
  if (command === '') return withDefault('has no URL and no default_url was given');
  const words = command.split(/\s+/);
  if (words[0].includes('://')) {
    // A bare URL; a comment after it is fine, anything else is a command that is not curl or wget.
    return words.length === 1 || words[1].startsWith('#') ? { expression, request: { url: words[0] } } : { error: 'expected a single URL after the schedule, or a curl or wget command' };
  }
  const read = readCommand(command);
  if ('request' in read) return { expression, request: read.request };
  if ('error' in read) return read;
  return withDefault(`the command ${read.other}; give default_url to call a URL on this schedule instead`);
}

function cronJobBody(expression: string, request: LineRequest) {
  const name = `${expression} ${urlForName(request.url)}`;
  // A long URL would push the name past its limit and lose a job over a label: shorten the
  // name only; request.url keeps the whole URL.
  return {
    name: name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH - 1)}…` : name,
    kind: 'cron',
    schedule: { cron: expression },
    request: { method: 'GET', ...request },
  };
}

/**
 * POST /v1/jobs/import: each good line becomes a cron job through createJob, in its own
 * transaction, so one bad line costs only itself. Problems with a line are reported in
 * `errors`, a line over the workspace's job quota too; anything else (the database going away)
 * fails the request. `notes` says what a person moving from crontab should know.
 */
export async function importCrontab(deps: Deps, workspaceId: string, body: unknown, actor?: Actor): Promise<ImportCrontabResult> {
  const input = validate<ImportInput>(importSchema, body);
  const result: ImportCrontabResult = { created: [], errors: [], notes: [] };
  let shortened = false;
  for (const entry of parseCrontab(input.crontab, input.default_url)) {
    if ('error' in entry) {
      result.errors.push({ line: entry.line, text: entry.text, message: entry.error });
      continue;
    }
    try {
      result.created.push((await createJob(deps, workspaceId, cronJobBody(entry.expression, entry.request), undefined, actor)).job);
      shortened ||= urlForName(entry.request.url) !== entry.request.url;
    } catch (error) {
      // Over MAX_JOBS_PER_WORKSPACE, each remaining line is refused on its own, like a bad line.
      if (!(error instanceof AppError && (error.code === 'validation_failed' || error.code === 'limit_exceeded'))) throw error;
      result.errors.push({ line: entry.line, text: entry.text, message: error.message });
    }
  }
  if (result.created.length > 0) result.notes.push(IMPORT_NOTES.utc);
  if (shortened) result.notes.push(IMPORT_NOTES.names);
  return result;
}
