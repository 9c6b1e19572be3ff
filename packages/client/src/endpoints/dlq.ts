import type { DlqStats, Execution, ExecutionListQuery, ListEnvelope, PurgeInput, PurgeResult, ReplayBatchInput, ReplayBatchResult } from '@cronsvc/contracts';
import type { Query, Send } from '../http.js';

const item = (id: string) => `/v1/dlq/${encodeURIComponent(id)}`;

export const dlqEndpoints = (send: Send) => ({
  list: (query: ExecutionListQuery = {}) => send<ListEnvelope<Execution>>('GET', '/v1/dlq', { query: query as Query }),
  stats: () => send<DlqStats>('GET', '/v1/dlq/stats'),
  replay: (id: string) => send<Execution>('POST', `${item(id)}/replay`),
  replayBatch: (body: ReplayBatchInput) => send<ReplayBatchResult>('POST', '/v1/dlq/replay-batch', { body }),
  delete: (id: string) => send<void>('DELETE', item(id)),
  purge: (body: PurgeInput = {}) => send<PurgeResult>('POST', '/v1/dlq/purge', { body }),
});
