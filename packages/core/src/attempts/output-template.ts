import { maskJson, type SecretMasker } from '../secrets/mask-secrets.js';
import { jsonPathBudget, jsonPathProblem, parseJsonBody, queryJsonPath, type JsonPathBudget, type ParsedBody } from './json-path.js';

/** response_output_template (docs/JOBS.md): JSONPath leaves on the JSON response body, literal leaves kept. */

export const MAX_OUTPUT_BYTES = 64 * 1024;
export const MAX_TEMPLATE_DEPTH = 10;

/** Problems with a template, for the job schema; empty when it can be rendered. */
export function validateOutputTemplate(template: unknown): string[] {
  if (typeof template !== 'object' || template === null || Array.isArray(template)) return ['must be an object'];
  const problems: string[] = [];
  const visit = (node: unknown, where: string, depth: number): void => {
    if (typeof node === 'string' && node.startsWith('$')) {
      const problem = jsonPathProblem(node);
      if (problem) problems.push(`${where}: ${JSON.stringify(node)} is not a valid JSONPath: ${problem}`);
    } else if (typeof node === 'object' && node !== null) {
      if (depth > MAX_TEMPLATE_DEPTH) return void problems.push(`${where}: nested deeper than ${MAX_TEMPLATE_DEPTH} levels`);
      for (const [key, child] of Object.entries(node)) visit(child, Array.isArray(node) ? `${where}[${key}]` : `${where}.${key}`, depth + 1);
    }
  };
  visit(template, '$', 1);
  return problems;
}

/**
 * Leaf strings starting with $ are JSONPath on the JSON body (one match -> value, several ->
 * array, none, a non-JSON body or a path that cannot be evaluated -> null); other leaves are kept.
 * The result is masked (`masker`), then a result over 64 KiB of JSON becomes {"_truncated": true}:
 * final_output is meant to stay compact. Every leaf spends from one JSONPath budget.
 */
export function renderOutput(template: unknown, bodyText: string, options: { budget?: JsonPathBudget; masker?: SecretMasker } = {}): unknown {
  const budget = options.budget ?? jsonPathBudget();
  let body: ParsedBody | undefined;
  const render = (node: unknown): unknown => {
    if (typeof node === 'string' && node.startsWith('$')) {
      body ??= parseJsonBody(bodyText);
      if (!body.isJson) return null;
      try {
        const result = queryJsonPath(node, body.value, budget);
        return result.found ? result.value : null;
      } catch {
        return null;
      }
    }
    if (Array.isArray(node)) return node.map(render);
    // fromEntries defines own properties, so a "__proto__" key stays a key and never a prototype.
    if (typeof node === 'object' && node !== null) return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, render(child)]));
    return node;
  };
  let output = render(template);
  let size: number;
  try {
    if (options.masker) output = maskJson(output, options.masker);
    size = Buffer.byteLength(JSON.stringify(output) ?? '', 'utf8');
  } catch {
    // Only a value nested too deeply for the stack gets here; it is certainly not compact.
    size = Infinity;
  }
  return size > MAX_OUTPUT_BYTES ? { _truncated: true } : output;
}
