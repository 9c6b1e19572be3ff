import type { ApplyResult } from '@cronsvc/contracts';
import type { Paint } from './color.js';

type Doc = Record<string, unknown>;

const show = (value: unknown) => (value === undefined ? '(default)' : JSON.stringify(value));
const isObject = (value: unknown): value is Doc => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The lines of one changed field: for an object, each inner value the file sets that differs
 * (`request.method: "GET" -> "POST"`); for anything else, or when the file only leaves values
 * out (they return to their defaults, which the server knows), the whole field's old and new
 * values. The server decides what changed; this only shows it.
 */
export function fieldLines(field: string, before: unknown, after: unknown): string[] {
  if (isObject(before) && isObject(after)) {
    const lines: string[] = [];
    for (const [key, value] of Object.entries(after)) {
      if (JSON.stringify(value) === JSON.stringify(before[key])) continue;
      lines.push(...fieldLines(`${field}.${key}`, before[key], value));
    }
    if (lines.length > 0) return lines;
  }
  return [`${field}: ${show(before)} -> ${show(after)}`];
}

/**
 * The plan as a reader wants it: `+ key` created, `~ key` changed with each field's old and new
 * value under it, `- key` deleted, then one summary line. Colours only when `paint` paints
 * (a terminal without NO_COLOR).
 */
export function planText(paint: Paint, result: ApplyResult, stored: Map<string, Doc>, given: Map<string, Doc>): string {
  const lines: string[] = [];
  for (const key of result.created) {
    const job = given.get(key) ?? {};
    lines.push(paint(`+ ${key}`, 'green') + paint(` (${String(job.kind)}, "${String(job.name)}")`, 'gray'));
  }
  for (const { key, fields } of result.updated) {
    lines.push(paint(`~ ${key}`, 'yellow'));
    const before = stored.get(key) ?? {};
    const after = given.get(key) ?? {};
    for (const field of fields) {
      for (const line of fieldLines(field, before[field], after[field])) lines.push(`    ${line}`);
    }
  }
  for (const key of result.deleted) lines.push(paint(`- ${key}`, 'red'));
  const changes = result.created.length + result.updated.length + result.deleted.length;
  if (changes === 0) {
    lines.push(`No changes: ${result.unchanged.length} job${result.unchanged.length === 1 ? '' : 's'} unchanged.`);
  } else {
    if (lines.length > 0) lines.push('');
    lines.push(
      `Plan: ${paint(`${result.created.length} to create`, 'green')}, ${paint(`${result.updated.length} to change`, 'yellow')}, ` +
        `${paint(`${result.deleted.length} to delete`, 'red')}, ${result.unchanged.length} unchanged.`,
    );
  }
  return lines.join('\n');
}

/** Whether a plan changes anything. */
export const hasChanges = (result: ApplyResult): boolean => result.created.length + result.updated.length + result.deleted.length > 0;
