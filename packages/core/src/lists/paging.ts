import Joi from 'joi';

export interface Page<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
}

/** limit 1..100 (default 50) and offset >= 0, as strings from a query string; never clamped (D3). */
export const pagingKeys = {
  limit: Joi.number().integer().min(1).max(100).default(50),
  offset: Joi.number().integer().min(0).max(1_000_000_000).default(0),
};
