/**
 * `{{...}}` placeholders of request-based jobs (docs/JOBS.md, "Variables and secrets"): finding them in a job's
 * request, naming the unknown ones, and rendering them. Pure functions, no I/O.
 */
import { SECRET_NAME_PATTERN } from '@cronsvc/contracts';

export type Variable = { kind: 'timestamp' | 'uuid' | 'execution_id' } | { kind: 'secret'; name: string };

/** One placeholder found in a job's request; `variable` is null when the placeholder names no known variable. */
export interface Reference {
  path: string;
  placeholder: string;
  variable: Variable | null;
}

export interface VariableValues {
  timestamp: string;
  uuid: string;
  execution_id: string;
  secrets: ReadonlyMap<string, string>;
}

export interface TemplatedRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

// Braces are excluded inside so `{{{uuid}}}` is a literal `{` around a placeholder, not one odd name.
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

export function parseVariable(expression: string): Variable | null {
  if (expression === 'timestamp' || expression === 'uuid' || expression === 'execution_id') return { kind: expression };
  if (expression.startsWith('secret.')) {
    const name = expression.slice('secret.'.length);
    if (SECRET_NAME_PATTERN.test(name)) return { kind: 'secret', name };
  }
  return null;
}

/** Every placeholder in `text`, as written and with the expression between its braces (trimmed). */
export function placeholderExpressions(text: string): { placeholder: string; expression: string }[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => ({ placeholder: m[0], expression: m[1] }));
}

/** Replaces each placeholder, in one pass, by what `value` gives for its expression; null leaves it as written. */
export function replacePlaceholders(text: string, value: (expression: string) => string | null): string {
  return text.replace(PLACEHOLDER, (whole: string, expression: string) => value(expression) ?? whole);
}

export function findPlaceholders(text: string): { placeholder: string; variable: Variable | null }[] {
  return placeholderExpressions(text).map((p) => ({ placeholder: p.placeholder, variable: parseVariable(p.expression) }));
}

/** Every string a request's variables render in, with the path an error should name (`request.body.items[2]`). */
export function templatedStrings(request: TemplatedRequest): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [{ path: 'request.url', text: request.url }];
  for (const [name, value] of Object.entries(request.headers)) out.push({ path: `request.headers.${name}`, text: value });
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') out.push({ path, text: value });
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
  };
  walk(request.body, 'request.body');
  return out;
}

export function findReferences(request: TemplatedRequest): Reference[] {
  return templatedStrings(request).flatMap(({ path, text }) => findPlaceholders(text).map((p) => ({ path, ...p })));
}

export function unknownVariableProblems(references: Reference[]): { path: string; message: string }[] {
  return references
    .filter((r) => r.variable === null)
    .map((r) => ({ path: r.path, message: `${r.placeholder} is not a known variable (use {{timestamp}}, {{uuid}}, {{execution_id}} or {{secret.<name>}})` }));
}

/** The distinct secret names a request uses, in first-use order. */
export function referencedSecretNames(references: Reference[]): string[] {
  const names = references.flatMap((r) => (r.variable?.kind === 'secret' ? [r.variable.name] : []));
  return [...new Set(names)];
}

/**
 * Substitutes every known placeholder in one pass, so substituted text is never scanned again:
 * a secret whose value contains `{{uuid}}` is sent literally. An unknown placeholder (or a
 * secret missing from `values`) stays as written: save-time checks refuse them, so only a job
 * saved before those checks can still carry one.
 */
export function renderString(text: string, values: VariableValues): string {
  return replacePlaceholders(text, (expression) => variableValue(parseVariable(expression), values));
}

/** A variable's rendered value; null for no variable, or a secret missing from `values`. */
export function variableValue(variable: Variable | null, values: VariableValues): string | null {
  if (variable === null) return null;
  if (variable.kind === 'secret') return values.secrets.get(variable.name) ?? null;
  return values[variable.kind];
}

/** Renders the URL, header values (not names), a string body and every string value at any depth of a JSON body. */
export function renderRequest(request: TemplatedRequest, values: VariableValues): TemplatedRequest {
  const render = (value: unknown): unknown => {
    if (typeof value === 'string') return renderString(value, values);
    if (Array.isArray(value)) return value.map(render);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v)]));
    return value;
  };
  return {
    url: renderString(request.url, values),
    headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, renderString(v, values)])),
    body: render(request.body),
  };
}

/**
 * The URL with every placeholder replaced by `x`, for checking at save time that it will be a
 * valid http(s) URL once rendered. `x` is valid in a host, path, query and fragment, and is not
 * a literal address the target guard would refuse (`0` would parse as the IPv4 address 0.0.0.0).
 */
export function placeholderSafeUrl(url: string): string {
  return url.replace(PLACEHOLDER, 'x');
}
