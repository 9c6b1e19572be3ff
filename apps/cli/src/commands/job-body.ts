import type { HttpMethod, JobInput, JobKind, JobPatch, RequestSpec, Schedule } from '@cronsvc/contracts';
import { HTTP_METHODS } from '@cronsvc/contracts';
import { UsageError } from '../errors.js';

/** The flags `jobs create` and `jobs update` share. */
export interface JobFlags {
  name?: string;
  every?: number;
  cron?: string;
  at?: string;
  once?: boolean;
  url?: string;
  method?: string;
  header?: string[];
  body?: string;
  timeout?: number;
  maxAttempts?: number;
  jitter?: number;
  overlap?: string;
  catchUp?: string;
  key?: string;
  tag?: string[];
}

/** The kind and schedule that --every, --cron, --at or --once ask for, if one of them is given. */
function scheduleOf(flags: JobFlags): { kind: JobKind; schedule?: Schedule } | undefined {
  const chosen = [flags.every !== undefined, flags.cron !== undefined, flags.at !== undefined, Boolean(flags.once)].filter(Boolean).length;
  if (chosen > 1) throw new UsageError('give one of --every, --cron, --at and --once');
  if (flags.every !== undefined) return { kind: 'recurring', schedule: { every_n_minutes: flags.every } };
  if (flags.cron !== undefined) return { kind: 'cron', schedule: { cron: flags.cron } };
  if (flags.at !== undefined) return { kind: 'scheduled', schedule: { run_at: flags.at } };
  if (flags.once) return { kind: 'one_time' };
  return undefined;
}

/** "Name: value" or "Name:value"; the value may hold colons itself. */
export function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header "${line}" is not NAME:VALUE`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** A JSON object or array is sent as JSON; anything else as the text given. */
function bodyOf(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') return parsed;
  } catch {
    // Not JSON: a text body.
  }
  return text;
}

function requestOf(flags: JobFlags): Partial<RequestSpec> | undefined {
  const request: Partial<RequestSpec> = {};
  if (flags.url !== undefined) request.url = flags.url;
  if (flags.method !== undefined) {
    const method = flags.method.toUpperCase() as HttpMethod;
    if (!HTTP_METHODS.includes(method)) throw new UsageError(`--method must be one of ${HTTP_METHODS.join(', ')}`);
    request.method = method;
  }
  if (flags.header?.length) request.headers = parseHeaders(flags.header);
  if (flags.body !== undefined) request.body = bodyOf(flags.body);
  if (flags.timeout !== undefined) request.timeout_seconds = flags.timeout;
  return Object.keys(request).length ? request : undefined;
}

/** The PATCH body of the fields given, and only those. */
export function jobPatch(flags: JobFlags, base: Record<string, unknown> = {}): JobPatch {
  const patch: Record<string, unknown> = { ...base };
  if (flags.name !== undefined) patch.name = flags.name;
  const schedule = scheduleOf(flags);
  if (schedule) Object.assign(patch, schedule);
  const request = requestOf(flags);
  if (request) patch.request = { ...(patch.request as object | undefined), ...request };
  if (flags.maxAttempts !== undefined) patch.retry_policy = { ...(patch.retry_policy as object | undefined), max_attempts: flags.maxAttempts };
  // The API checks the values (and refuses them on kinds without a schedule).
  if (flags.jitter !== undefined) patch.jitter_seconds = flags.jitter;
  if (flags.overlap !== undefined) patch.overlap_policy = flags.overlap;
  if (flags.catchUp !== undefined) patch.catch_up_policy = flags.catchUp;
  if (flags.key !== undefined) patch.key = flags.key;
  if (flags.tag !== undefined) patch.tags = flags.tag;
  return patch as JobPatch;
}

/** A create body: from flags alone, or a --file body with the flags given laid over it. */
export function jobInput(flags: JobFlags, file?: Record<string, unknown>): JobInput {
  const input = jobPatch(flags, file) as Partial<JobInput>;
  if (!file) {
    const missing = [!input.name && '--name', !input.request?.url && '--url', !input.kind && 'one of --every, --cron, --at, --once'].filter(Boolean);
    if (missing.length) throw new UsageError(`jobs create needs ${missing.join(', ')} (or --file)`);
  }
  return input as JobInput;
}
