/**
 * A row as pg returns it (snake_case columns, jsonb parsed, timestamptz as Date) in the shape
 * Prisma gives its models (camelCase fields), for hot statements sent without Prisma. Every
 * column is carried over, so a column added to the table needs no edit here.
 */
export function camelRow<T>(record: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) out[key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = value;
  return out as T;
}
