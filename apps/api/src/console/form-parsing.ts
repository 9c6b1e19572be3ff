/**
 * What the job form and its step list share: forms post flat strings, the API takes typed
 * values. These reshape without judging; the API stays the one validator, and only what cannot
 * be reshaped at all (JSON that does not parse, a line without its colon) is reported here.
 */

export type FormValues = Record<string, string>;
export type FieldErrors = Record<string, string[]>;

/** How an empty field travels: left out (the API's default applies) or null (reset to the default on edit). */
export type Empty = undefined | null;

/** Whole numbers become numbers; anything else goes as typed, for the API to say what is wrong. */
export function numberField(text: string | undefined, empty: Empty): unknown {
  const t = (text ?? '').trim();
  if (t === '') return empty;
  return /^-?\d+$/.test(t) ? Number(t) : t;
}

export function numberListField(text: string | undefined, empty: Empty): unknown {
  const t = (text ?? '').trim();
  if (t === '') return empty;
  return t.split(/[\s,]+/).map((part) => (/^-?\d+$/.test(part) ? Number(part) : part));
}

export function withoutUndefined(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
}

export function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** A JSON field: undefined when empty, the value when it parses, else an error on `field`. */
export function jsonField(text: string | undefined, field: string, errors: FieldErrors): unknown {
  const t = (text ?? '').trim();
  if (t === '') return undefined;
  try {
    return JSON.parse(t);
  } catch (error) {
    addError(errors, field, `is not valid JSON: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * A map written one entry a line as `key: value` (headers, extracts); blank lines are skipped.
 * Undefined when there is no entry; a line without a colon is an error on `field`.
 */
export function linesField(text: string | undefined, field: string, errors: FieldErrors, what: string): Record<string, string> | undefined {
  const map: Record<string, string> = {};
  let any = false;
  (text ?? '').split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const colon = line.indexOf(':');
    if (colon <= 0) return addError(errors, field, `line ${i + 1}: write each ${what}`);
    map[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    any = true;
  });
  return any ? map : undefined;
}

/** A map of strings as `key: value` lines; anything else as JSON, for the person to see what is there. */
export function linesText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')) {
    return Object.entries(value as Record<string, string>).map(([k, v]) => `${k}: ${v}`).join('\n');
  }
  return JSON.stringify(value);
}

export const prettyJson = (value: unknown) => (value === undefined || value === null ? '' : JSON.stringify(value, null, 2));

/** The posted form's own fields (strings only; anything else a client sends is dropped). */
export function postedValues(body: unknown): FormValues {
  const values: FormValues = {};
  for (const [k, v] of Object.entries((body ?? {}) as Record<string, unknown>)) if (typeof v === 'string' && k !== '_csrf') values[k] = v;
  return values;
}
