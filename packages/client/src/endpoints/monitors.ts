import type { ListEnvelope, Monitor, MonitorInput, MonitorListQuery, MonitorPatch, MonitorPing, PageQuery, PingResult } from '@cronsvc/contracts';
import type { Query, Send } from '../http.js';

const monitor = (id: string) => `/v1/monitors/${encodeURIComponent(id)}`;

export const monitorsEndpoints = (send: Send) => ({
  list: (query: MonitorListQuery = {}) => send<ListEnvelope<Monitor>>('GET', '/v1/monitors', { query: query as Query }),
  get: (id: string) => send<Monitor>('GET', monitor(id)),
  create: (body: MonitorInput) => send<Monitor>('POST', '/v1/monitors', { body }),
  update: (id: string, body: MonitorPatch) => send<Monitor>('PATCH', monitor(id), { body }),
  delete: (id: string) => send<void>('DELETE', monitor(id)),
  pause: (id: string) => send<Monitor>('POST', `${monitor(id)}/pause`),
  resume: (id: string) => send<Monitor>('POST', `${monitor(id)}/resume`),
  /** The last 1,000 pings, newest first. */
  pings: (id: string, query: PageQuery = {}) => send<ListEnvelope<MonitorPing>>('GET', `${monitor(id)}/pings`, { query: query as Query }),
  /** The public ping: the token is the credential, no bearer token is sent. */
  ping: (token: string) => send<PingResult>('POST', `/v1/ping/${encodeURIComponent(token)}`, { anonymous: true }),
});
