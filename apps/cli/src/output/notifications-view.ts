import type { Channel, Delivery, HostLimit, ListEnvelope, Monitor, Rule, Secret } from '@cronsvc/contracts';
import { paintStatus, type Paint } from './color.js';
import { details, table } from './table.js';
import { relativeTime } from './time.js';

export const secretsTable = (page: ListEnvelope<Secret>) =>
  table(page.data, [
    { header: 'ID', value: (s) => s.id },
    { header: 'NAME', value: (s) => s.name },
    { header: 'UPDATED', value: (s) => relativeTime(s.updated_at) },
  ]);

export const hostLimitsTable = (page: ListEnvelope<HostLimit>) =>
  table(page.data, [
    { header: 'HOST', value: (h) => h.host, max: 40 },
    { header: 'MAX CONCURRENCY', value: (h) => (h.max_concurrency === null ? '-' : String(h.max_concurrency)) },
    { header: 'MAX PER SECOND', value: (h) => (h.max_per_second === null ? '-' : String(h.max_per_second)) },
    { header: 'COOL-DOWN UNTIL', value: (h) => (h.cooldown_until ? `${h.cooldown_until} (${relativeTime(h.cooldown_until)})` : '-') },
  ]);

export const channelsTable = (page: ListEnvelope<Channel>) =>
  table(page.data, [
    { header: 'ID', value: (c) => c.id },
    { header: 'NAME', value: (c) => c.name, max: 30 },
    { header: 'TYPE', value: (c) => c.type },
    { header: 'CREDENTIALS', value: (c) => c.configured_secrets.join(',') || '-' },
    { header: 'CREATED', value: (c) => relativeTime(c.created_at) },
  ]);

export const channelDetails = (channel: Channel) =>
  details([
    ['ID', channel.id],
    ['Name', channel.name],
    ['Type', channel.type],
    ['Config', JSON.stringify(channel.config)],
    ['Credentials set', channel.configured_secrets.join(', ') || '-'],
    ['Created', relativeTime(channel.created_at)],
    ['Updated', relativeTime(channel.updated_at)],
  ]);

export const rulesTable = (page: ListEnvelope<Rule>) =>
  table(page.data, [
    { header: 'ID', value: (r) => r.id },
    { header: 'EVENT', value: (r) => r.event },
    { header: 'CHANNEL', value: (r) => r.channel_id },
    { header: 'ON', value: (r) => r.job_id ?? r.monitor_id ?? '' },
    { header: 'OPTIONS', value: ruleOptions },
    { header: 'SNOOZED UNTIL', value: (r) => r.snoozed_until ?? '-' },
    { header: 'HELD BACK', value: (r) => String(r.held_back) },
    { header: 'CREATED', value: (r) => relativeTime(r.created_at) },
  ]);

/** "after 3 failures, again every 60 min", or "-" for a rule without options. */
export function ruleOptions(r: Rule): string {
  if (r.event !== 'on_failure' || r.job_id === null) return '-';
  const realert = r.realert_after_minutes === null ? 'once per streak' : r.realert_after_minutes === 0 ? 'every failure' : `again every ${r.realert_after_minutes} min`;
  return `after ${r.after_consecutive_failures} failure${r.after_consecutive_failures === 1 ? '' : 's'}, ${realert}`;
}

export const ruleDetails = (r: Rule) =>
  [
    `${r.id}: ${r.event} -> ${r.channel_id} (${r.job_id ? `job ${r.job_id}` : `monitor ${r.monitor_id}`})`,
    `options:        ${ruleOptions(r)}`,
    `snoozed until:  ${r.snoozed_until ?? 'not snoozed'}`,
    `held back:      ${r.held_back}`,
    `last delivered: ${r.last_delivered_at ?? 'never'}`,
  ].join('\n');

export const deliveriesTable = (paint: Paint, page: ListEnvelope<Delivery>) =>
  table(page.data, [
    { header: 'ID', value: (d) => d.id },
    { header: 'KIND', value: (d) => d.kind },
    { header: 'EVENT', value: (d) => d.event },
    { header: 'STATUS', value: (d) => paintStatus(paint, d.status) },
    { header: 'ATTEMPTS', value: (d) => String(d.attempts) },
    { header: 'CODE', value: (d) => (d.last_status_code === null ? '-' : String(d.last_status_code)) },
    { header: 'CREATED', value: (d) => relativeTime(d.created_at) },
    { header: 'LAST ERROR', value: (d) => d.last_error ?? '', max: 50 },
  ]);

export const monitorsTable = (paint: Paint, page: ListEnvelope<Monitor>) =>
  table(page.data, [
    { header: 'ID', value: (m) => m.id },
    { header: 'NAME', value: (m) => m.name, max: 30 },
    { header: 'STATE', value: (m) => paintStatus(paint, m.state) },
    { header: 'EVERY', value: (m) => `${m.expected_interval_sec}s` },
    { header: 'GRACE', value: (m) => `${m.grace_sec}s` },
    { header: 'LAST PING', value: (m) => relativeTime(m.last_ping_at) },
    { header: 'DUE', value: (m) => relativeTime(m.next_due_at) },
  ]);

export const monitorDetails = (paint: Paint, monitor: Monitor) =>
  details([
    ['ID', monitor.id],
    ['Name', monitor.name],
    ['State', paintStatus(paint, monitor.state)],
    ['Interval', `${monitor.expected_interval_sec} s`],
    ['Grace', `${monitor.grace_sec} s`],
    ['Last ping', relativeTime(monitor.last_ping_at)],
    ['Next due', relativeTime(monitor.next_due_at)],
    ['Ping URL', monitor.ping_url],
  ]);
