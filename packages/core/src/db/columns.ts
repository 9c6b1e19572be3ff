import { withoutNulJsonText } from '../validation/nul.js';

/**
 * Batched statements over `unnest()`ed arrays, built from one column list: a column is declared
 * once (name, Postgres type, how to read it from a row), and the `unnest(...)` source, its
 * parameter arrays and the insert's column list all follow from it, so adding a column is one edit.
 */
export interface Column<T> {
  name: string;
  /** Postgres type of one element: `text`, `jsonb`, `timestamptz`, `int`, `boolean`. */
  type: string;
  value: (row: T) => unknown;
}

/** `unnest($1::text[], $2::jsonb[], ...) AS alias(a, b, ...)`, its parameters numbered from `first`. */
export function unnestFrom<T>(columns: readonly Column<T>[], alias: string, first = 1): string {
  const params = columns.map((c, i) => `$${first + i}::${c.type}[]`).join(', ');
  return `unnest(${params}) AS ${alias}(${columnNames(columns)})`;
}

export function columnNames<T>(columns: readonly Column<T>[]): string {
  return columns.map((c) => c.name).join(', ');
}

/** One array per column, in the column list's order: the parameters of unnestFrom. */
export function columnArrays<T>(columns: readonly Column<T>[], rows: readonly T[]): unknown[][] {
  return columns.map((c) => rows.map(c.value));
}

// JSON goes as text: pg would turn a JS array into a Postgres array literal. jsonb cannot hold
// \u0000, which an outside value may carry: it becomes \ufffd (validation/nul.ts).
export const jsonText = (value: unknown) => (value === null || value === undefined ? null : withoutNulJsonText(JSON.stringify(value)));
export const isoText = (value: Date | null | undefined) => value?.toISOString() ?? null;
