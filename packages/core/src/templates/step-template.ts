/**
 * Placeholders of step-driven jobs (docs/WORKFLOWS.md): the request-job variables plus the roots
 * `context` (the run's context) and `trigger` (the inbound request of a webhook_trigger job).
 * Finding them in steps with the path an error should name, and rendering them. Pure functions.
 */
import type { Step } from '@cronsvc/contracts';
import { parseVariable, placeholderExpressions, replacePlaceholders, variableValue, type Variable, type VariableValues } from './template.js';

/** Context keys are template names (`{{context.<key>}}`): what extract maps may name. */
export const CONTEXT_KEY = /^[A-Za-z0-9_-]{1,128}$/;

export type StepVariable =
  | { root: 'variable'; variable: Variable }
  | { root: 'context'; key: string; path: string[] }
  | { root: 'trigger'; part: TriggerPart; path: string[] };

const TRIGGER_PARTS = ['headers', 'body', 'query', 'source_ip', 'received_at'] as const;
type TriggerPart = (typeof TRIGGER_PARTS)[number];
// How many path segments may follow each part of the trigger: a header or query parameter name,
// any path into the body, nothing after the scalars.
const TRIGGER_DEPTH: Record<TriggerPart, number> = { headers: 1, body: Infinity, query: 1, source_ip: 0, received_at: 0 };

/** What `{{trigger.*}}` reads: the stored trigger_input of the execution. */
export interface TriggerValues {
  headers: Record<string, string>;
  body: unknown;
  query: Record<string, unknown>;
  source_ip: string | null;
  received_at: string;
}

export interface StepValues extends VariableValues {
  context: Record<string, unknown>;
  trigger: TriggerValues | null;
}

export function parseStepVariable(expression: string): StepVariable | null {
  const variable = parseVariable(expression);
  if (variable) return { root: 'variable', variable };
  const [root, ...path] = expression.split('.');
  if (path.some((segment) => segment === '' || /\s/.test(segment))) return null;
  if (root === 'context') {
    const [key, ...rest] = path;
    return key !== undefined && CONTEXT_KEY.test(key) ? { root, key, path: rest } : null;
  }
  if (root === 'trigger') {
    const [part, ...rest] = path;
    if (!(TRIGGER_PARTS as readonly string[]).includes(part)) return null;
    return rest.length <= TRIGGER_DEPTH[part as TriggerPart] ? { root, part: part as TriggerPart, path: rest } : null;
  }
  return null;
}

/** Every string of a step that placeholders render in, with its path (`steps[1].body_template.items[0]`). */
export function stepTemplatedStrings(step: Step, at: string): { path: string; text: string; shownToPeople: boolean }[] {
  const out: { path: string; text: string; shownToPeople: boolean }[] = [];
  if (step.type === 'approval') out.push({ path: `${at}.message`, text: step.message, shownToPeople: true });
  if (step.type !== 'http') return out;
  out.push({ path: `${at}.url`, text: step.url, shownToPeople: false });
  for (const [name, value] of Object.entries(step.headers)) out.push({ path: `${at}.headers.${name}`, text: value, shownToPeople: false });
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') out.push({ path, text: value, shownToPeople: false });
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
  };
  walk(step.body_template, `${at}.body_template`);
  return out;
}

/** Values that come from outside the workspace: an inbound call (trigger) or a target's answer (context). */
const fromOutside = (parsed: StepVariable | null): boolean => parsed !== null && parsed.root !== 'variable';

/** Where a URL's scheme and authority (host and port) end: at the first /, ? or # after "//", else the end. */
function authorityEnd(url: string): number {
  const start = url.indexOf('//');
  const from = start < 0 ? 0 : start + 2;
  const ends = ['/', '?', '#'].map((c) => url.indexOf(c, from)).filter((i) => i >= 0);
  return ends.length > 0 ? Math.min(...ends) : url.length;
}

/**
 * A step URL's placeholders that could change its scheme, host or port: values from a trigger or
 * the context placed before the path begins (`https://api.example.com{{trigger.body.p}}` goes
 * wherever "@evil.example/" sends it).
 */
function placeholdersInAuthority(url: string): string[] {
  const end = authorityEnd(url);
  return [...url.matchAll(/\{\{\s*([^{}]*?)\s*\}\}/g)].filter((m) => m.index < end && fromOutside(parseStepVariable(m[1]))).map((m) => m[0]);
}

const KNOWN =
  'use {{context.<key>}}, {{trigger.headers.<name>}}, {{trigger.body.<path>}}, {{trigger.query.<name>}}, {{trigger.source_ip}}, ' +
  '{{trigger.received_at}}, {{timestamp}}, {{uuid}}, {{execution_id}} or {{secret.<name>}}';

/**
 * Save-time problems of the steps' placeholders, each at its path, and the secrets they use (to
 * be checked against the workspace). `trigger` exists only for webhook_trigger jobs, and an
 * approval message, which approvers read, may not hold a secret.
 */
export function stepTemplateProblems(steps: Step[], kind: string): { problems: { path: string; message: string }[]; secrets: { path: string; name: string }[] } {
  const problems: { path: string; message: string }[] = [];
  const secrets: { path: string; name: string }[] = [];
  steps.forEach((step, i) => {
    if (step.type === 'http') {
      for (const placeholder of placeholdersInAuthority(step.url)) {
        problems.push({ path: `steps[${i}].url`, message: `${placeholder} cannot come before the path: a value from a trigger or the context could change the host (start the path with / before it)` });
      }
    }
    for (const { path, text, shownToPeople } of stepTemplatedStrings(step, `steps[${i}]`)) {
      for (const { placeholder, expression } of placeholderExpressions(text)) {
        const parsed = parseStepVariable(expression);
        if (parsed === null) problems.push({ path, message: `${placeholder} is not a known variable (${KNOWN})` });
        else if (parsed.root === 'trigger' && kind !== 'webhook_trigger') {
          problems.push({ path, message: `${placeholder} has no value here: only webhook_trigger jobs are started by a trigger` });
        } else if (parsed.root === 'variable' && parsed.variable.kind === 'secret') {
          if (shownToPeople) problems.push({ path, message: `${placeholder} cannot be used here: approval messages are shown to approvers` });
          else secrets.push({ path, name: parsed.variable.name });
        }
      }
    }
  });
  return { problems, secrets };
}

function lookup(value: unknown, path: string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(segment)) current = current[Number(segment)];
    else if (current !== null && typeof current === 'object' && !Array.isArray(current) && Object.hasOwn(current, segment)) current = (current as Record<string, unknown>)[segment];
    else return undefined;
  }
  return current;
}

/** A looked-up value as template text: strings as they are, other JSON as its JSON text, nothing as ''. */
export function templateText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function stepVariableValue(parsed: StepVariable | null, values: StepValues): string | null {
  if (parsed === null) return null;
  if (parsed.root === 'variable') return variableValue(parsed.variable, values);
  if (parsed.root === 'context') return templateText(lookup(values.context, [parsed.key, ...parsed.path]));
  if (values.trigger === null) return '';
  const path = parsed.part === 'headers' ? parsed.path.map((name) => name.toLowerCase()) : parsed.path;
  return templateText(lookup(values.trigger[parsed.part], path));
}

/** Substitutes every placeholder in one pass: values brought in (a context value holding `{{uuid}}`) are never scanned again. */
export function renderStepString(text: string, values: StepValues): string {
  return replacePlaceholders(text, (expression) => stepVariableValue(parseStepVariable(expression), values));
}

/**
 * A step's URL rendered. Values from a trigger or the context are percent-encoded but for "/", so
 * they can make up path segments or a query value, and never end the path early, add a query
 * parameter or reach the scheme, host or port. Null when those values would still change the
 * scheme, host or port, which the save-time check keeps out of new jobs.
 */
export function renderStepUrl(text: string, values: StepValues): string | null {
  const rendered = shownStepUrl(text, values);
  return originOf(rendered) !== null && originOf(rendered) === originOf(renderUrl(text, values, () => '')) ? rendered : null;
}

/** A step's URL rendered as renderStepUrl renders it, without the origin check: for showing, never for sending. */
export function shownStepUrl(text: string, values: StepValues): string {
  return renderUrl(text, values, (value) => encodeURIComponent(value).replaceAll('%2F', '/'));
}

/** The URL with each placeholder's value, those from a trigger or the context passed through `outside`. */
function renderUrl(text: string, values: StepValues, outside: (value: string) => string): string {
  return replacePlaceholders(text, (expression) => {
    const parsed = parseStepVariable(expression);
    const value = stepVariableValue(parsed, values);
    return value !== null && fromOutside(parsed) ? outside(value) : value;
  });
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** A JSON value with every string rendered, at any depth (keys are left as they are). */
export function renderStepJson(value: unknown, values: StepValues): unknown {
  if (typeof value === 'string') return renderStepString(value, values);
  if (Array.isArray(value)) return value.map((item) => renderStepJson(item, values));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderStepJson(v, values)]));
  return value;
}

/** The secret names a step's request uses, in first-use order. */
export function stepSecretNames(step: Step): string[] {
  const names: string[] = [];
  for (const { text } of stepTemplatedStrings(step, '')) {
    for (const { expression } of placeholderExpressions(text)) {
      const parsed = parseStepVariable(expression);
      if (parsed?.root === 'variable' && parsed.variable.kind === 'secret' && !names.includes(parsed.variable.name)) names.push(parsed.variable.name);
    }
  }
  return names;
}
