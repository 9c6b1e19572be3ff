import { JSONPath } from 'jsonpath-plus';

/**
 * JSONPath evaluation for response assertions and output templates (D5).
 *
 * jsonpath-plus is lenient ("$.[" quietly means "$..") and its filters run a JS subset that can
 * call methods ("@.s.match('(a+)+$')" would bring back the backtracking RE2 keeps out). So paths
 * are held to a strict grammar that jsonpath-plus reads the same way: no method calls in
 * filters, at most one "..", and no repeated union members, which keeps every evaluation's
 * work within (nodes x path length) and its results within the node count.
 */

// A ceiling on matched nodes: a 1 MiB body has far fewer useful ones; past it the answer is an error.
const MAX_MATCHES = 100_000;

export type ParsedBody = { isJson: true; value: unknown } | { isJson: false };
export type PathResult = { found: true; value: unknown } | { found: false };

export function parseJsonBody(bodyText: string): ParsedBody {
  try {
    return { isJson: true, value: JSON.parse(bodyText.replace(/^\uFEFF/, '')) };
  } catch {
    return { isJson: false };
  }
}

const NAME = /[\w$\-\u0080-\uFFFF]+/y;
const INDEX = /^(0|[1-9]\d*)$/;
const UNION = /^(0|[1-9]\d*)(,(0|[1-9]\d*))+$/;
const SLICE = /^(-?\d+)?:(-?\d+)?(:[1-9]\d*)?$/;
// Characters jsonpath-plus gives a meaning even inside quotes (union, slice, filter, type ops, escapes).
const QUOTED_NAME = /^(['"])([^'"[\]\\,;~^%:()@?*`]*)\1$/;
// jsonpath-plus's own test for a nested filter, which it evaluates outside the script engine.
const NESTED_FILTER = /@.?([^?]*)[['](\??\(.*?\))(?!.\)\])[\]']/u;

const NODE_TYPES = new Set(['BinaryExpression', 'UnaryExpression', 'ConditionalExpression', 'MemberExpression', 'Identifier', 'Literal', 'ArrayExpression']);
const BINARY_OPS = new Set(['||', '&&', '==', '!=', '===', '!==', '<', '>', '<=', '>=', '+', '-', '*', '/', '%']);
const UNARY_OPS = new Set(['!', '-', '+']);
// What jsonpath-plus rewrites @, @root, @parent, @property, @parentProperty and @path into.
const IDENTIFIERS = new Set(['_$_v', '_$_root', '_$_parent', '_$_property', '_$_parentProperty', '_$_path']);

type AstNode = { type: string; operator?: string; name?: string; computed?: boolean; [key: string]: unknown };
type Script = { ast: AstNode; runInNewContext(context: object): unknown };
// Not in jsonpath-plus's typings, but it is how the library reaches its own interpreter.
const SafeScript = (JSONPath as unknown as { prototype: { safeVm: { Script: new (code: string) => Script } } }).prototype.safeVm.Script;

function checkAst(node: AstNode): void {
  if (!NODE_TYPES.has(node.type)) throw new Error(node.type === 'CallExpression' ? 'function calls are not allowed in filters' : `${node.type} is not allowed in filters`);
  if (node.type === 'Identifier' && !IDENTIFIERS.has(node.name ?? '')) throw new Error(`unknown name "${node.name}" in a filter (use @, @root, @parent, @property)`);
  if (node.type === 'BinaryExpression' && !BINARY_OPS.has(node.operator ?? '')) throw new Error(`operator ${node.operator} is not allowed in filters`);
  if (node.type === 'UnaryExpression' && !UNARY_OPS.has(node.operator ?? '')) throw new Error(`operator ${node.operator} is not allowed in filters`);
  if (node.type === 'MemberExpression') {
    checkAst(node.object as AstNode);
    // jsonpath-plus evaluates a computed key without the filter's variables: only a literal works.
    if (node.computed && (node.property as AstNode).type !== 'Literal') throw new Error('only literal keys may be used in [] inside filters');
    return;
  }
  for (const key of ['left', 'right', 'argument', 'test', 'consequent', 'alternate']) if (node[key]) checkAst(node[key] as AstNode);
  for (const element of (node.elements as AstNode[] | undefined) ?? []) checkAst(element);
}

/** The script engine handed to jsonpath-plus: its own safe interpreter, minus calls and assignments. */
class RestrictedScript {
  private readonly script: Script;
  constructor(code: string) {
    this.script = new SafeScript(code);
    checkAst(this.script.ast);
  }
  runInNewContext(context: object): unknown {
    return this.script.runInNewContext(context);
  }
}

function checkScript(code: string): void {
  if (NESTED_FILTER.test(code)) throw new Error('nested filters are not supported');
  // The same rewriting jsonpath-plus applies before handing the code to the script engine.
  const script = code.replaceAll('@parentProperty', '_$_parentProperty').replaceAll('@parent', '_$_parent').replaceAll('@property', '_$_property')
    .replaceAll('@root', '_$_root').replaceAll(/@([.\s)[])/gu, '_$_v$1').replaceAll('@path', '_$_path');
  new RestrictedScript(script);
}

function closingBracket(path: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let i = open + 1; i < path.length; i += 1) {
    const c = path[i];
    if (quote) quote = c === quote ? '' : quote;
    else if (c === "'" || c === '"') quote = c;
    else if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (c === ']' && depth === 0) return i;
  }
  throw new Error('has an unclosed [');
}

function bracketSegment(content: string): string {
  if (content === '*' || INDEX.test(content) || SLICE.test(content)) return content;
  if (UNION.test(content)) {
    const members = content.split(',');
    if (new Set(members).size !== members.length) throw new Error(`repeats an index in [${content}]`);
    return content;
  }
  const quoted = QUOTED_NAME.exec(content);
  if (quoted && quoted[2] !== '$' && quoted[2] !== '..') return quoted[2];
  if (content.startsWith('?(') && content.endsWith(')')) checkScript(content.slice(2, -1));
  else if (content.startsWith('(') && content.endsWith(')')) checkScript(content);
  else throw new Error(`has an unsupported selector [${content}]`);
  return content;
}

function segmentsOf(path: string): string[] {
  if (path[0] !== '$') throw new Error('must start with $');
  const segments = ['$'];
  let i = 1;
  while (i < path.length) {
    if (path[i] === '[') {
      const close = closingBracket(path, i);
      segments.push(bracketSegment(path.slice(i + 1, close)));
      i = close + 1;
      continue;
    }
    if (path.startsWith('..', i)) {
      if (segments.includes('..')) throw new Error('may use recursive descent (..) only once');
      segments.push('..');
      i += 2;
      if (path[i] === '[') continue;
    } else if (path[i] === '.') i += 1;
    else throw new Error(`has an unexpected ${JSON.stringify(path[i])} at position ${i}`);
    NAME.lastIndex = i;
    const name = path[i] === '*' ? '*' : NAME.exec(path)?.[0];
    if (!name || name === '$') throw new Error(`needs a property name or * at position ${i}`);
    segments.push(name);
    i += name.length;
  }
  return segments;
}

// jsonpath-plus memoizes every path and filter it has seen in a global object that never shrinks;
// paths arrive through the API, so it is dropped now and then rather than left to grow.
let cacheUses = 0;

/** Why a JSONPath expression is refused, or null when it is fine. */
export function jsonPathProblem(path: string): string | null {
  if (++cacheUses > 10_000) {
    (JSONPath as unknown as { cache: object }).cache = {};
    cacheUses = 0;
  }
  try {
    const segments = segmentsOf(path);
    // The last word belongs to jsonpath-plus's own parser: anything it reads differently is refused.
    if (JSON.stringify(segments) !== JSON.stringify(JSONPath.toPathArray(path))) return 'uses syntax this service does not support';
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** One match gives its value, several an array of values, none "not found". Throws on a refused path. */
export function queryJsonPath(path: string, document: unknown): PathResult {
  const problem = jsonPathProblem(path);
  if (problem) throw new Error(`JSONPath ${JSON.stringify(path)} ${problem}`);
  // jsonpath-plus treats a falsy document (null, 0, "", false) as nothing to search; only $ reaches a scalar root.
  if (!document) return path === '$' ? { found: true, value: document } : { found: false };
  let matches = 0;
  const callback = () => {
    matches += 1;
    if (matches > MAX_MATCHES) throw new Error(`JSONPath ${JSON.stringify(path)} matches more than ${MAX_MATCHES} nodes`);
  };
  // ignoreEvalErrors: a filter that throws on one node (@.a.b where a is missing) just skips that node.
  const values = JSONPath({ path, json: document as object, wrap: true, eval: RestrictedScript, ignoreEvalErrors: true, callback }) as unknown[];
  if (values.length === 0) return { found: false };
  return { found: true, value: values.length === 1 ? values[0] : values };
}
