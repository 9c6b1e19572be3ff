/** Where the API serves the web console (docs/CONSOLE.md); the start-up lines name it. */
export const CONSOLE_PATH = '/console';

const at = (...parts: string[]) => [CONSOLE_PATH, ...parts.map(encodeURIComponent)].join('/');

/** Every console URL, built in one place so pages and routes agree. */
export const paths = {
  signIn: at('sign-in'),
  signOut: at('sign-out'),
  asset: (file: string) => at('assets', file),
  jobs: at('jobs'),
  newJob: at('jobs', 'new'),
  importJobs: at('jobs', 'import'),
  job: (id: string) => at('jobs', id),
  jobEdit: (id: string) => at('jobs', id, 'edit'),
  jobAction: (id: string, action: 'run-now' | 'pause' | 'resume' | 'delete') => at('jobs', id, action),
  jobRules: (id: string) => at('jobs', id, 'rules'),
  ruleDelete: (owner: { kind: 'job' | 'monitor'; id: string }, ruleId: string) => at(owner.kind === 'job' ? 'jobs' : 'monitors', owner.id, 'rules', ruleId, 'delete'),
  executions: at('executions'),
  execution: (id: string) => at('executions', id),
  replay: (id: string) => at('executions', id, 'replay'),
  deadLetters: at('dead-letters'),
  deadLetterAction: (id: string, action: 'replay' | 'remove') => at('dead-letters', id, action),
  replayJobDeadLetters: at('dead-letters', 'replay-job'),
  purgeDeadLetters: at('dead-letters', 'purge'),
  monitors: at('monitors'),
  monitor: (id: string) => at('monitors', id),
  monitorAction: (id: string, action: 'pause' | 'resume' | 'delete') => at('monitors', id, action),
  monitorRules: (id: string) => at('monitors', id, 'rules'),
  channels: at('channels'),
  channelTest: (id: string) => at('channels', id, 'test'),
  channel: (id: string) => at('channels', id),
  monitorRule: at('channels', 'monitor-rules'),
  ruleSnooze: (ruleId: string, action: 'snooze' | 'unsnooze') => at('channels', 'rules', ruleId, action),
  secrets: at('secrets'),
  secret: (id: string) => at('secrets', id),
  secretDelete: (id: string) => at('secrets', id, 'delete'),
  tokens: at('tokens'),
  tokenDelete: (id: string) => at('tokens', id, 'delete'),
  audit: at('audit'),
  hosts: at('hosts'),
  hostDelete: at('hosts', 'delete'),
  jobsTagged: (tag: string) => `${at('jobs')}?${new URLSearchParams({ tag })}`,
  tagAction: (tag: string, action: 'pause' | 'resume') => at('tags', tag, action),
  statusPages: at('status-pages'),
  statusPage: (id: string) => at('status-pages', id),
  statusPageDelete: (id: string) => at('status-pages', id, 'delete'),
};

/** A console path a sign-in may return to: only this console's own pages, never another site. */
export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== 'string' || !value.startsWith(`${CONSOLE_PATH}/`) || value.startsWith(paths.signIn)) return null;
  return /^\/console\/[A-Za-z0-9_\-./?=&%+:]*$/.test(value) && !value.includes('//') && !value.includes('/../') ? value : null;
}
