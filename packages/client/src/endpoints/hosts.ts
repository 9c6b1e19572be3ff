import type { HostLimit, HostLimitInput, ListEnvelope, PageQuery } from '@cronsvc/contracts';
import type { Query, Send } from '../http.js';

const hostLimit = (host: string) => `/v1/host-limits/${encodeURIComponent(host)}`;

export const hostLimitsEndpoints = (send: Send) => ({
  list: (query: PageQuery = {}) => send<ListEnvelope<HostLimit>>('GET', '/v1/host-limits', { query: query as Query }),
  get: (host: string) => send<HostLimit>('GET', hostLimit(host)),
  set: (host: string, limits: HostLimitInput) => send<HostLimit>('PUT', hostLimit(host), { body: limits }),
  delete: (host: string) => send<void>('DELETE', hostLimit(host)),
});
