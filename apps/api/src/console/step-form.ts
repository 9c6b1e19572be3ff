import { createHash } from 'node:crypto';
import { STEP_TYPES } from '@cronsvc/contracts';
import {
  addError, jsonField, linesField, linesText, numberField, numberListField, prettyJson, withoutUndefined, type FieldErrors, type FormValues,
} from './form-parsing.js';

/**
 * The step list of a step-driven job's form (docs/CONSOLE.md, "Steps"): one row of fields per
 * step, named after the API's paths (`steps[1].url`) so the API's validation details land on
 * the field they are about; the same steps as JSON beside it; and the list's add, remove, move
 * and change-type actions, which re-render the form without saving.
 */

/** One step as the form holds it: field name to text. */
export type StepRow = Record<string, string>;

/** The API's limit on steps (the step schema's MAX_STEPS): no Add button past it. */
export const MAX_FORM_STEPS = 50;

/** The fields of each step type, in the order the form shows them; extracts go with every type. */
export const STEP_FIELDS: Record<string, readonly string[]> = {
  http: ['url', 'method', 'headers', 'body_template', 'timeout_seconds', 'success_statuses', 'success_pattern', 'failure_pattern', 'pattern_flags', 'response_assertions'],
  wait_for_webhook: ['timeout_seconds', 'on_timeout'],
  approval: ['message', 'timeout_seconds', 'on_timeout'],
};
const EXTRACT_FIELDS = ['extract', 'extract_to_context'];
/** What a wait or an approval may do when its time is up, the API's default first. */
export const ON_TIMEOUT: Record<string, readonly string[]> = { wait_for_webhook: ['fail', 'continue'], approval: ['reject', 'approve'] };
const ROW_FIELDS = new Set(['id', 'type', ...Object.values(STEP_FIELDS).flat(), ...EXTRACT_FIELDS]);

/** The fields a row of `type` shows: its id and type, its type's own, the extracts. */
export const rowFields = (type: string): string[] => ['id', 'type', ...(STEP_FIELDS[type] ?? []), ...EXTRACT_FIELDS];

/** A step field's form name, which is also the API's path of that field. */
export const stepField = (index: number, field: string) => `steps[${index}].${field}`;

/** The hidden fields that tell which of the two editors a person changed. */
export const STEPS_JSON_BASE = 'steps_json_base';
export const STEPS_LIST_BASE = 'steps_list_base';
/** The name of the list's buttons; their value is the action. */
export const STEP_ACTION = 'step_action';

const ROW_KEY = /^steps\[(\d{1,3})\]\.([a-z_]+)$/;

/** The step rows a form posted, in index order (gaps closed). */
export function postedRows(values: FormValues): StepRow[] {
  const rows = new Map<number, StepRow>();
  for (const [key, value] of Object.entries(values)) {
    const match = ROW_KEY.exec(key);
    if (!match || !ROW_FIELDS.has(match[2])) continue;
    const index = Number(match[1]);
    const row = rows.get(index) ?? {};
    row[match[2]] = value;
    rows.set(index, row);
  }
  return [...rows.entries()].sort(([a], [b]) => a - b).map(([, row]) => row);
}

/** An http step's body template: JSON when it is an object or array, any other text as a string template. */
function bodyTemplate(text: string | undefined): unknown {
  if ((text ?? '').trim() === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(text as string);
    if (parsed !== null && typeof parsed === 'object') return parsed;
  } catch {
    // Not JSON: a string template.
  }
  return text;
}

/** One row as the API's step; an empty field is left out, so the API's default applies. */
export function stepFromRow(row: StepRow, index: number, errors: FieldErrors): Record<string, unknown> {
  const at = (field: string) => stepField(index, field);
  const type = row.type ?? '';
  const timeout = numberField(row.timeout_seconds, undefined);
  const extracts = {
    extract: linesField(row.extract, at('extract'), errors, 'extract as key: $.path'),
    extract_to_context: linesField(row.extract_to_context, at('extract_to_context'), errors, 'extract as key: $.path'),
  };
  const common = { id: (row.id ?? '').trim(), type };
  if (type === 'http') {
    const patterns = withoutUndefined({ success_pattern: row.success_pattern || undefined, failure_pattern: row.failure_pattern || undefined, flags: row.pattern_flags || undefined });
    return withoutUndefined({
      ...common,
      url: (row.url ?? '').trim(),
      method: row.method || undefined,
      headers: linesField(row.headers, at('headers'), errors, 'header as Name: value'),
      body_template: bodyTemplate(row.body_template),
      timeout_seconds: timeout,
      success_statuses: numberListField(row.success_statuses, undefined),
      response_matcher: Object.keys(patterns).length > 0 ? patterns : undefined,
      response_assertions: jsonField(row.response_assertions, at('response_assertions'), errors),
      ...extracts,
    });
  }
  const message = type === 'approval' ? (row.message ?? '') : undefined;
  return withoutUndefined({ ...common, message, timeout_seconds: timeout, on_timeout: row.on_timeout || undefined, ...extracts });
}

export function stepsFromRows(rows: StepRow[], errors: FieldErrors = {}): Record<string, unknown>[] {
  return rows.map((row, i) => stepFromRow(row, i, errors));
}

const text = (value: unknown) =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** A step of the API (or of posted JSON) as a row; null for what is no object at all. */
export function rowFromStep(step: unknown): StepRow | null {
  if (step === null || typeof step !== 'object' || Array.isArray(step)) return null;
  const s = step as Record<string, unknown>;
  const matcher = (s.response_matcher ?? {}) as Record<string, unknown>;
  const row: StepRow = {
    id: text(s.id),
    type: text(s.type),
    url: text(s.url),
    method: text(s.method),
    headers: linesText(s.headers),
    body_template: typeof s.body_template === 'string' ? s.body_template : prettyJson(s.body_template),
    timeout_seconds: text(s.timeout_seconds),
    success_statuses: Array.isArray(s.success_statuses) ? s.success_statuses.join(', ') : text(s.success_statuses),
    success_pattern: text(matcher.success_pattern),
    failure_pattern: text(matcher.failure_pattern),
    pattern_flags: text(matcher.flags),
    response_assertions: prettyJson(s.response_assertions),
    message: text(s.message),
    on_timeout: text(s.on_timeout),
    extract: linesText(s.extract),
    extract_to_context: linesText(s.extract_to_context),
  };
  return Object.fromEntries(rowFields(row.type).map((f) => [f, row[f] ?? '']));
}

/** Rows for each step, or null when one of them is no object (the list cannot show it). */
export function rowsFromSteps(steps: unknown): StepRow[] | null {
  if (!Array.isArray(steps)) return null;
  const rows = steps.map(rowFromStep);
  return rows.every((r) => r !== null) ? (rows as StepRow[]) : null;
}

/**
 * A short fingerprint of what an editor showed, to tell on the way back whether it was changed.
 * Line ends are compared as \n: browsers send a textarea's lines with \r\n.
 */
export function fingerprint(textValue: string): string {
  return createHash('sha256').update(textValue.replace(/\r\n?/g, '\n').trim()).digest('base64url').slice(0, 22);
}

/** The list's fingerprint: that of the steps it makes, so only a change that changes a step counts. */
export const listFingerprint = (rows: StepRow[]) => fingerprint(JSON.stringify(stepsFromRows(rows)));

/** What the step editor shows: the rows, the JSON text, and where focus goes after an action. */
export interface StepsEditor {
  rows: StepRow[];
  json: string;
  /** The JSON as it was before this post, when it stays changed (it did not parse); else that of `json`. */
  jsonBase: string;
  /** Show the JSON open: the list is empty, or the JSON is what the person is editing. */
  jsonOpen: boolean;
  /** The id of the control to focus after a list action. */
  focus: string | null;
}

/** The editor of a stored job's steps (or of none). */
export function editorOf(steps: unknown): StepsEditor {
  const rows = rowsFromSteps(steps ?? []) ?? [];
  return editorShowing(rows);
}

/** The editor showing these rows, with the JSON they make. */
export function editorShowing(rows: StepRow[], focus: string | null = null): StepsEditor {
  const json = rows.length === 0 ? '' : prettyJson(stepsFromRows(rows));
  return { rows, json, jsonBase: fingerprint(json), jsonOpen: rows.length === 0, focus };
}

export interface PostedSteps {
  /** The steps for the API's body; undefined when they cannot be sent (see errors). */
  steps: unknown;
  errors: FieldErrors;
  /** What the form shows again if the save is refused, or after a list action. */
  editor: StepsEditor;
  /** The list does not show the steps sent (JSON that is no array of objects): their problems belong to the JSON. */
  jsonOnly: boolean;
}

const CONFLICT =
  'The step list and the JSON were both changed. Nothing was saved. Save again to use the JSON as it is; to keep the list instead, empty the JSON box.';

/**
 * The steps a form posted. The list is what counts unless the JSON box was changed (and not
 * emptied); then the JSON does, and the list is rebuilt from it. Both changed: nothing is sent,
 * and the next save takes the JSON.
 */
export function postedSteps(values: FormValues): PostedSteps {
  const errors: FieldErrors = {};
  const listed = postedRows(values);
  const json = values.steps ?? '';
  const jsonBase = values[STEPS_JSON_BASE] ?? fingerprint('');
  const jsonChanged = json.trim() !== '' && fingerprint(json) !== jsonBase;
  const listChanged = listed.length > 0 && listFingerprint(listed) !== values[STEPS_LIST_BASE];
  if (!jsonChanged) return { steps: stepsFromRows(listed, errors), errors, editor: editorShowing(listed), jsonOnly: false };
  // The JSON stays the changed one, so the next save takes it.
  const jsonKept: StepsEditor = { rows: listed, json, jsonBase, jsonOpen: true, focus: null };
  if (listChanged) {
    addError(errors, 'steps', CONFLICT);
    return { steps: undefined, errors, editor: jsonKept, jsonOnly: true };
  }
  const parsed = jsonField(json, 'steps', errors);
  if (errors.steps) return { steps: undefined, errors, editor: jsonKept, jsonOnly: true };
  const rows = rowsFromSteps(parsed);
  if (!rows) return { steps: parsed, errors, editor: jsonKept, jsonOnly: true };
  return { steps: parsed, errors, editor: { rows, json, jsonBase: fingerprint(json), jsonOpen: true, focus: null }, jsonOnly: false };
}

function freeId(rows: StepRow[]): string {
  const taken = new Set(rows.map((r) => r.id));
  let n = rows.length + 1;
  while (taken.has(`step-${n}`)) n += 1;
  return `step-${n}`;
}

/** The element ids of the list's controls, which an action focuses. */
export const stepControlId = (index: number, control: string) => `step-${index}-${control.replace(/_/g, '-')}`;
export const addStepId = (type: string) => `step-add-${type.replace(/_/g, '-')}`;

/**
 * A list action on the rows: `add:<type>`, `remove:<i>`, `up:<i>`, `down:<i>` or `type:<i>`
 * (show the fields of a changed type). Answers the rows and the control to focus next; an
 * action that does not apply changes nothing.
 */
export function applyStepAction(rows: StepRow[], action: string): { rows: StepRow[]; focus: string | null } {
  const [verb, arg = ''] = action.split(':');
  const next = rows.map((r) => ({ ...r }));
  const i = /^\d{1,3}$/.test(arg) ? Number(arg) : -1;
  if (verb === 'add' && (STEP_TYPES as readonly string[]).includes(arg) && rows.length < MAX_FORM_STEPS) {
    next.push({ id: freeId(rows), type: arg });
    return { rows: next, focus: stepControlId(next.length - 1, 'id') };
  }
  if (i < 0 || i >= rows.length) return { rows, focus: null };
  if (verb === 'remove') {
    next.splice(i, 1);
    const focus = next.length === 0 ? addStepId('http') : stepControlId(Math.min(i, next.length - 1), 'id');
    return { rows: next, focus };
  }
  if (verb === 'up' && i > 0) {
    [next[i - 1], next[i]] = [next[i], next[i - 1]];
    return { rows: next, focus: stepControlId(i - 1, i - 1 === 0 ? 'down' : 'up') };
  }
  if (verb === 'down' && i < rows.length - 1) {
    [next[i], next[i + 1]] = [next[i + 1], next[i]];
    return { rows: next, focus: stepControlId(i + 1, i + 1 === rows.length - 1 ? 'up' : 'down') };
  }
  if (verb === 'type') {
    // A wait's "fail" means nothing to an approval: the new type's default takes over.
    if (!(ON_TIMEOUT[next[i].type] ?? []).includes(next[i].on_timeout)) delete next[i].on_timeout;
    return { rows: next, focus: stepControlId(i, 'type') };
  }
  return { rows, focus: null };
}

// A step field's API sub-paths, most specific first, to the row field that edits them.
const ROW_FIELD_OF_PATH: [string, string][] = [
  ['response_matcher.success_pattern', 'success_pattern'],
  ['response_matcher.failure_pattern', 'failure_pattern'],
  ['response_matcher.flags', 'pattern_flags'],
  ['response_matcher', 'success_pattern'],
  ...[...ROW_FIELDS].map((f): [string, string] => [f, f]),
];

const covers = (prefix: string, path: string) => path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);

/**
 * The form field an API detail path under `steps` is about: `steps[1].url` to that row's URL
 * (`steps[1].headers.X-Key` too, with the rest of the path kept in the message), a step's own
 * problem to the step, the list's to `steps`. Null for a path outside the steps.
 */
export function stepErrorField(path: string): { field: string; inner: string } | null {
  if (path === 'steps') return { field: 'steps', inner: '' };
  const match = /^steps\[(\d+)\](?:\.(.*))?$/.exec(path);
  if (!match) return null;
  const index = Number(match[1]);
  const rest = match[2];
  if (rest === undefined) return { field: `steps[${index}]`, inner: '' };
  const found = ROW_FIELD_OF_PATH.find(([prefix]) => covers(prefix, rest));
  if (!found) return { field: `steps[${index}]`, inner: `${rest}: ` };
  const exact = ROW_FIELD_OF_PATH.some(([prefix, f]) => f === found[1] && prefix === rest);
  return { field: stepField(index, found[1]), inner: exact ? '' : `${rest}: ` };
}

/**
 * After a list action: the editor with the action applied (nothing is saved). JSON that does not
 * parse, or is no list of steps, has to be fixed first, so the action waits.
 */
export function afterStepAction(posted: PostedSteps, action: string): { editor: StepsEditor; errors: FieldErrors } {
  if (posted.errors.steps) return { editor: posted.editor, errors: { steps: posted.errors.steps } };
  if (posted.jsonOnly) return { editor: posted.editor, errors: { steps: ['must be a JSON array of steps (objects) to be shown as a list; fix it, or empty it to keep the list'] } };
  const { rows, focus } = applyStepAction(posted.editor.rows, action);
  return { editor: editorShowing(rows, focus), errors: {} };
}
