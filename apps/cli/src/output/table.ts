import { visibleLength } from './color.js';

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Cut longer values (after colouring is not possible, so colour only short cells). */
  max?: number;
}

const cut = (text: string, max?: number) => (max && text.length > max ? `${text.slice(0, max - 1)}…` : text);
const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - visibleLength(text)));

/** Rows under a header, columns two spaces apart and padded to their widest cell. */
export function table<T>(rows: T[], columns: Column<T>[]): string {
  const cells = rows.map((row) => columns.map((column) => cut(column.value(row).replace(/\s+/g, ' '), column.max)));
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((r) => visibleLength(r[i]!))));
  const line = (values: string[]) => values.map((v, i) => (i === values.length - 1 ? v : pad(v, widths[i]!))).join('  ').trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}

/** "Key   value" lines for one object; empty values are left out. */
export function details(pairs: [string, string | null | undefined][]): string {
  const shown = pairs.filter(([, value]) => value !== undefined && value !== null && value !== '');
  const width = Math.max(...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `${pad(key, width)}  ${value}`).join('\n');
}
