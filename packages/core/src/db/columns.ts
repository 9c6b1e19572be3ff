import { storableJsonText, storableText } from '../validation/storable-text.js';

/**
 * Batched statements over `unnest()`ed arrays, built from one column list: a column is declared
 * once (name, Postgres type, how to read it from a row), and the `unnest(...)` source, its
 * parameter arrays and the insert's column list all follow from it, so adding a column is one edit
 * and nobody numbers $1..$18 by hand (docs/adr/014-data-access.md).
 *
 * The arrays are made storable by type, so every batched writer gets it without asking: `jsonb`
 * values go as JSON text (pg would turn a JS array into a Postgres array literal), `timestamptz`
 * as ISO text, and NUL or an unpaired surrogate, which PostgreSQL cannot store, becomes U+FFFD
 * (validation/storable-text.ts).
 */
export interface Column<T> {
  name: string;
  /** Postgres type of one element: `text`, `jsonb`, `timestamptz`, `int`, `boolean`. */
  type: 'text' | 'jsonb' | 'timestamptz' | 'int' | 'boolean';
  /** The value as JavaScript has it: a string, a JSON value, a Date, a number, a boolean, or null. */
  value: (row: T) => unknown;
}

/** `unnest($1::text[], $2::jsonb[], ...) AS alias(a, b, ...)`, its parameters numbered from `first`; `ordinality` names a row-number column. */
export function unnestFrom<T>(columns: readonly Column<T>[], alias: string, options: { first?: number; ordinality?: string } = {}): string {
  const first = options.first ?? 1;
  const params = columns.map((c, i) => `$${first + i}::${c.type}[]`).join(', ');
  const names = options.ordinality ? `${columnNames(columns)}, ${options.ordinality}` : columnNames(columns);
  return `unnest(${params})${options.ordinality ? ' WITH ORDINALITY' : ''} AS ${alias}(${names})`;
}

export function columnNames<T>(columns: readonly Column<T>[]): string {
  return columns.map((c) => c.name).join(', ');
}

/** The `$n` that follows a column list's parameters, for a statement's scalar parameters after them. */
export function paramAfter<T>(columns: readonly Column<T>[], nth = 1): string {
  return `$${columns.length + nth}`;
}

const storable: Record<Column<unknown>['type'], (value: unknown) => unknown> = {
  text: (v) => (typeof v === 'string' ? storableText(v) : v),
  jsonb: (v) => jsonText(v),
  timestamptz: (v) => (v instanceof Date ? v.toISOString() : v),
  int: (v) => v,
  boolean: (v) => v,
};

/** One array per column, in the column list's order, each value made storable by its type: the parameters of unnestFrom. */
export function columnArrays<T>(columns: readonly Column<T>[], rows: readonly T[]): unknown[][] {
  return columns.map((c) => rows.map((row) => storable[c.type](c.value(row) ?? null)));
}

/** A JSON value as jsonb can store it, or null. */
export const jsonText = (value: unknown) => (value === null || value === undefined ? null : storableJsonText(JSON.stringify(value)));
export const isoText = (value: Date | null | undefined) => value?.toISOString() ?? null;
