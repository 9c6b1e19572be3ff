import type { Delivery, DeliveryListQuery, Execution, ExecutionListQuery, ListEnvelope } from '@cronsvc/contracts';
import type { Query, Send } from '../http.js';

const execution = (id: string) => `/v1/executions/${encodeURIComponent(id)}`;

export const executionsEndpoints = (send: Send) => ({
  list: (query: ExecutionListQuery = {}) => send<ListEnvelope<Execution>>('GET', '/v1/executions', { query: query as Query }),
  get: (id: string) => send<Execution>('GET', execution(id)),
  replay: (id: string) => send<Execution>('POST', `${execution(id)}/replay`),
  park: (id: string) => send<Execution>('POST', `${execution(id)}/park`),
  resume: (id: string) => send<Execution>('POST', `${execution(id)}/resume`),
  notifications: (id: string, query: DeliveryListQuery = {}) => send<ListEnvelope<Delivery>>('GET', `${execution(id)}/notifications`, { query: query as Query }),
});
