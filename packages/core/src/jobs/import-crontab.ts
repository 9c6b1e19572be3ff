import { MAX_CRONTAB_LINES, type ImportError, type ImportInput } from '@cronsvc/contracts';
import Joi from 'joi';
import type { JobRow } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../runtime/deps.js';
import { validate } from '../validation/validate.js';
import { createJob } from './create-job.js';
import { urlSchema } from './job-schema.js';

// The job schema's limit on names; see cronJobBody.
const MAX_NAME_LENGTH = 200;

export type CrontabEntry = { line: number; text: string } & ({ expression: string; url: string } | { error: string });

export interface ImportCrontabResult {
  created: JobRow[];
  errors: ImportError[];
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
 * Splits a crontab into its job lines: `<5 cron fields> <url>` or `@macro <url>`, the URL
 * optional when `defaultUrl` is given. Blank and `#` lines are skipped. Only the shape of a
 * line is checked here; the cron expression and URL are validated by createJob, so an
 * imported job is held to exactly the rules of POST /v1/jobs.
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

function parseLine(trimmed: string, defaultUrl: string | undefined): { expression: string; url: string } | { error: string } {
  const tokens = trimmed.split(/\s+/);
  // Real crontabs often start with SHELL=... or MAILTO=...; say what they are rather than "bad minute field".
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(tokens[0])) return { error: 'environment settings (NAME=value) are not supported' };
  const fieldCount = tokens[0].startsWith('@') ? 1 : 5;
  const schedule = tokens.slice(0, fieldCount);
  const rest = tokens.slice(fieldCount);
  if (schedule.some((token) => token.includes('://'))) return { error: `expected ${fieldCount === 1 ? 'a macro' : '5 cron fields'} before the URL` };
  if (rest.length > 1) return { error: 'expected a single URL after the schedule (commands are not supported)' };
  const url = rest[0] ?? defaultUrl;
  if (url === undefined) return { error: 'has no URL and no default_url was given' };
  return { expression: schedule.join(' '), url };
}

function cronJobBody(expression: string, url: string) {
  const name = `${expression} ${url}`;
  // A long URL would push the name past its limit and lose a job over a label: shorten the
  // name only; request.url keeps the whole URL.
  return {
    name: name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH - 1)}…` : name,
    kind: 'cron',
    schedule: { cron: expression },
    request: { url, method: 'GET' },
  };
}

/**
 * POST /v1/jobs/import: each good line becomes a cron job through createJob, in its own
 * transaction, so one bad line costs only itself. Problems with a line are reported in
 * `errors`, a line over the workspace's job quota too; anything else (the database going away)
 * fails the request.
 */
export async function importCrontab(deps: Deps, workspaceId: string, body: unknown): Promise<ImportCrontabResult> {
  const input = validate<ImportInput>(importSchema, body);
  const result: ImportCrontabResult = { created: [], errors: [] };
  for (const entry of parseCrontab(input.crontab, input.default_url)) {
    if ('error' in entry) {
      result.errors.push({ line: entry.line, text: entry.text, message: entry.error });
      continue;
    }
    try {
      result.created.push((await createJob(deps, workspaceId, cronJobBody(entry.expression, entry.url))).job);
    } catch (error) {
      // Over MAX_JOBS_PER_WORKSPACE, each remaining line is refused on its own, like a bad line.
      if (!(error instanceof AppError && (error.code === 'validation_failed' || error.code === 'limit_exceeded'))) throw error;
      result.errors.push({ line: entry.line, text: entry.text, message: error.message });
    }
  }
  return result;
}
