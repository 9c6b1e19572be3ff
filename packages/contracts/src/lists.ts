/** Every list endpoint answers with this envelope: limit 1..100, default 50. */
export interface ListEnvelope<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
}

/** The paging query every list endpoint accepts. */
export interface PageQuery {
  limit?: number;
  offset?: number;
}

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;
