import type {
  ApplyDocument, ApplyInput, ApplyResult, Execution, ExecutionListQuery, Fire, FireListQuery, ImportResult, Job, JobInput, JobListQuery, JobPatch, JobStats, ListEnvelope, StatsWindow, TagChange, TagList,
} from '@cronsvc/contracts';
import type { Query, Send } from '../http.js';

const job = (id: string) => `/v1/jobs/${encodeURIComponent(id)}`;

export const jobsEndpoints = (send: Send) => ({
  list: (query: JobListQuery = {}) => send<ListEnvelope<Job>>('GET', '/v1/jobs', { query: query as Query }),
  get: (id: string) => send<Job>('GET', job(id)),
  create: (body: JobInput) => send<Job>('POST', '/v1/jobs', { body }),
  update: (id: string, body: JobPatch) => send<Job>('PATCH', job(id), { body }),
  delete: (id: string) => send<void>('DELETE', job(id)),
  pause: (id: string) => send<Job>('POST', `${job(id)}/pause`),
  resume: (id: string) => send<Job>('POST', `${job(id)}/resume`),
  runNow: (id: string) => send<Execution>('POST', `${job(id)}/run-now`),
  import: (crontab: string, defaultUrl?: string) =>
    send<ImportResult>('POST', '/v1/jobs/import', { body: defaultUrl === undefined ? { crontab } : { crontab, default_url: defaultUrl } }),
  apply: (body: ApplyInput) => send<ApplyResult>('POST', '/v1/jobs/apply', { body }),
  export: (tag?: string) => send<ApplyDocument>('GET', '/v1/jobs/export', { query: { tag } }),
  executions: (id: string, query: ExecutionListQuery = {}) => send<ListEnvelope<Execution>>('GET', `${job(id)}/executions`, { query: query as Query }),
  fires: (id: string, query: FireListQuery = {}) => send<ListEnvelope<Fire>>('GET', `${job(id)}/fires`, { query: query as Query }),
  stats: (id: string, window?: StatsWindow) => send<JobStats>('GET', `${job(id)}/stats`, { query: window === undefined ? {} : { window } }),
});

/** Tags across the workspace's jobs (docs/JOBS-AS-CODE.md, "Tags"). */
export const tagsEndpoints = (send: Send) => ({
  list: () => send<TagList>('GET', '/v1/tags'),
  pause: (tag: string) => send<TagChange>('POST', `/v1/tags/${encodeURIComponent(tag)}/pause`),
  resume: (tag: string) => send<TagChange>('POST', `/v1/tags/${encodeURIComponent(tag)}/resume`),
});
