import type { ListEnvelope, PageQuery, Secret, SigningKey } from '@cronsvc/contracts';
import type { Query, Send } from '../http.js';

const secret = (id: string) => `/v1/secrets/${encodeURIComponent(id)}`;

export const secretsEndpoints = (send: Send) => ({
  list: (query: PageQuery = {}) => send<ListEnvelope<Secret>>('GET', '/v1/secrets', { query: query as Query }),
  get: (id: string) => send<Secret>('GET', secret(id)),
  create: (name: string, value: string) => send<Secret>('POST', '/v1/secrets', { body: { name, value } }),
  update: (id: string, value: string) => send<Secret>('PATCH', secret(id), { body: { value } }),
  delete: (id: string) => send<void>('DELETE', secret(id)),
});

export const signingKeyEndpoints = (send: Send) => ({
  get: () => send<SigningKey>('GET', '/v1/signing-key'),
  rotate: () => send<SigningKey>('POST', '/v1/signing-key/rotate'),
});
