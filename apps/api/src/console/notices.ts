// What a page says after the action that led to it (`?done=<key>`): a fixed list, so nothing a
// link carries is shown as it is except a count.
const NOTICES: Record<string, string> = {
  'job-created': 'Job created.',
  'job-saved': 'Changes saved.',
  'job-paused': 'Job paused: it does not run until it is resumed.',
  'job-resumed': 'Job resumed.',
  'job-deleted': 'Job deleted, with its executions and notification rules.',
  'rule-added': 'Notification rule added.',
  'rule-removed': 'Notification rule removed.',
  'rule-snoozed': 'Notification rule snoozed.',
  'channel-created': 'Channel created.',
  'channel-updated': 'Channel saved.',
  'rule-unsnoozed': 'Notification rule no longer snoozed.',
  'replayed': 'Replay queued.',
  'run-queued': 'Run queued.',
  'dead-letter-removed': 'Removed from the dead letters; the execution record stays.',
  'dead-letters-replayed': 'Replays queued: {n}.',
  'dead-letters-purged': 'Dead letters purged: {n}.',
  'monitor-created': 'Monitor created. Ping its URL to bring it up.',
  'monitor-paused': 'Monitor paused.',
  'monitor-resumed': 'Monitor resumed.',
  'monitor-deleted': 'Monitor deleted.',
  'monitor-saved': 'Monitor saved.',
  'secret-created': 'Secret created.',
  'secret-updated': 'Secret value replaced.',
  'secret-deleted': 'Secret deleted.',
  'token-deleted': 'Token deleted: requests with it are refused, and its console sessions have ended.',
  'host-limits-set': "Host limits set: the executors keep to them within a second.",
  'host-limits-removed': 'Host limits and cool-down removed.',
  'tag-paused': 'Jobs paused: {n}.',
  'tag-resumed': 'Jobs resumed: {n}.',
  'status-page-created': 'Status page created: copy its public URL to share it.',
  'status-page-saved': 'Status page saved.',
  'status-page-deleted': 'Status page deleted: its public URL no longer works.',
};

export function noticeFor(query: Record<string, unknown>): string | null {
  const text = typeof query.done === 'string' ? NOTICES[query.done] : undefined;
  if (!text) return null;
  const n = typeof query.n === 'string' && /^\d{1,7}$/.test(query.n) ? query.n : '0';
  return text.replace('{n}', n);
}
