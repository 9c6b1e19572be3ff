import type { ApiToken, ApiTokenCreated, AuditEvent, ListEnvelope, PageQuery, TokenScope } from '@cronsvc/contracts';
import type { Query, Send } from '../http.js';

export interface TokenCreate {
  name?: string;
  scope?: TokenScope;
  expires_at?: string;
}

export interface AuditEventQuery extends PageQuery {
  action?: string;
  target_id?: string;
  from?: string;
  to?: string;
}

export const tokensEndpoints = (send: Send) => ({
  list: (query: PageQuery = {}) => send<ListEnvelope<ApiToken>>('GET', '/v1/tokens', { query: query as Query }),
  create: (body: TokenCreate) => send<ApiTokenCreated>('POST', '/v1/tokens', { body }),
  delete: (id: string) => send<void>('DELETE', `/v1/tokens/${encodeURIComponent(id)}`),
});

export const auditEndpoints = (send: Send) => ({
  list: (query: AuditEventQuery = {}) => send<ListEnvelope<AuditEvent>>('GET', '/v1/audit-events', { query: query as Query }),
});
