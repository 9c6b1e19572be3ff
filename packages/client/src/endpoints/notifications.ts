import type { Channel, ChannelInput, ChannelPatch, ChannelTestSuccess, Delivery, DeliveryListQuery, ErrorEnvelope, ListEnvelope, PageQuery, Rule, RuleInput, SnoozeInput } from '@cronsvc/contracts';
import type { Query, Send } from '../http.js';

const channel = (id: string) => `/v1/notification-channels/${encodeURIComponent(id)}`;

/** POST /v1/notification-channels/:id/test answers 200 either way; this is the failed case. */
export type ChannelTestFailure = { ok: false; http_status: number; permanent: boolean } & ErrorEnvelope;

/** Rules hang off a job or a monitor. */
export interface RuleOwner {
  job?: string;
  monitor?: string;
}

function rulesPath(owner: RuleOwner): string {
  if (owner.job) return `/v1/jobs/${encodeURIComponent(owner.job)}/notification-rules`;
  if (owner.monitor) return `/v1/monitors/${encodeURIComponent(owner.monitor)}/notification-rules`;
  throw new TypeError('a rule belongs to a job or a monitor');
}

export const channelsEndpoints = (send: Send) => ({
  list: (query: PageQuery = {}) => send<ListEnvelope<Channel>>('GET', '/v1/notification-channels', { query: query as Query }),
  get: (id: string) => send<Channel>('GET', channel(id)),
  create: (body: ChannelInput) => send<Channel>('POST', '/v1/notification-channels', { body }),
  update: (id: string, body: ChannelPatch) => send<Channel>('PATCH', channel(id), { body }),
  delete: (id: string) => send<void>('DELETE', channel(id)),
  test: (id: string) => send<ChannelTestSuccess | ChannelTestFailure>('POST', `${channel(id)}/test`),
});

export const rulesEndpoints = (send: Send) => ({
  list: (owner: RuleOwner, query: PageQuery = {}) => send<ListEnvelope<Rule>>('GET', rulesPath(owner), { query: query as Query }),
  add: (owner: RuleOwner, body: RuleInput) => send<Rule>('POST', rulesPath(owner), { body }),
  remove: (owner: RuleOwner, ruleId: string) => send<void>('DELETE', `${rulesPath(owner)}/${encodeURIComponent(ruleId)}`),
  /** Any rule, of a job or a monitor, by its id alone. */
  get: (ruleId: string) => send<Rule>('GET', `/v1/notification-rules/${encodeURIComponent(ruleId)}`),
  snooze: (ruleId: string, body: SnoozeInput) => send<Rule>('POST', `/v1/notification-rules/${encodeURIComponent(ruleId)}/snooze`, { body }),
  unsnooze: (ruleId: string) => send<Rule>('POST', `/v1/notification-rules/${encodeURIComponent(ruleId)}/unsnooze`),
});

export const deliveriesEndpoints = (send: Send) => ({
  list: (query: DeliveryListQuery = {}) => send<ListEnvelope<Delivery>>('GET', '/v1/notification-deliveries', { query: query as Query }),
  retry: (id: string) => send<Delivery>('POST', `/v1/notification-deliveries/${encodeURIComponent(id)}/retry`),
});
