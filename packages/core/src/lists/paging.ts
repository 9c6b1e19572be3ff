
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, type ListEnvelope } from '@cronsvc/contracts';
import Joi from 'joi';

/** A page of rows before serialization: the list envelope's shape. */
export type Page<T> = ListEnvelope<T>;

/** limit 1..100 (default 50) and offset >= 0, as strings from a query string; never clamped (docs/API.md, "Conventions"). */
export const pagingKeys = {
  limit: Joi.number().integer().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT),
  offset: Joi.number().integer().min(0).max(1_000_000_000).default(0),
};
