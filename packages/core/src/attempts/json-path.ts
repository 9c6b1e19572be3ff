import { JSONPath } from 'jsonpath-plus';

/**
 * JSONPath evaluation for response assertions and output templates, and every other
 * JSONPath the service accepts: the caps below live here so that every caller gets them.
 *
 * jsonpath-plus is lenient ("$.[" quietly means "$..") and its filters run a JS subset that can
 * call methods ("@.s.match('(a+)+$')" would bring back the backtracking RE2 keeps out) and build
 * strings ("@root.s + @root.s + ..." makes hundreds of MB out of a 1 MiB body). So paths are held
 * to a strict grammar that jsonpath-plus reads the same way (no method calls, at most one "..",
 * no repeated union members, at most MAX_PATH_LENGTH characters and MAX_FILTER_OPERATORS
 * operators per filter), filters run on our own evaluator (arithmetic on numbers only, no
 * conversion of arrays or objects to text), and every evaluation spends from a budget of steps
 * (see JsonPathBudget), so no body and no path can hold the event loop for long.
 */

export const MAX_PATH_LENGTH = 500;
export const MAX_FILTER_OPERATORS = 20;
/**
 * Steps one evaluation may take (an attempt's assertions and output template share one): a step
 * is one node visited by jsonpath-plus, one node of a filter evaluated, or 256 characters
 * compared. jsonpath-plus takes 2 to 6 us a step, so this is at most a few hundred ms of work,
 * and enough for a filter over some ten thousand array items.
 */
export const DEFAULT_JSONPATH_BUDGET = 50_000;

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

type AstNode = { type: string; operator?: string; name?: string; computed?: boolean; value?: unknown; [key: string]: unknown };
type Script = { ast: AstNode };
// Not in jsonpath-plus's typings, but it is how the library reaches its own parser.
const SafeScript = (JSONPath as unknown as { prototype: { safeVm: { Script: new (code: string) => Script } } }).prototype.safeVm.Script;

const CHILDREN = ['left', 'right', 'argument', 'test', 'consequent', 'alternate'] as const;

/** Refuses what filters may not contain; returns how many operators the expression uses. */
function checkAst(node: AstNode): number {
  if (!NODE_TYPES.has(node.type)) throw new Error(node.type === 'CallExpression' ? 'function calls are not allowed in filters' : `${node.type} is not allowed in filters`);
  if (node.type === 'Identifier' && !IDENTIFIERS.has(node.name ?? '')) throw new Error(`unknown name "${node.name}" in a filter (use @, @root, @parent, @property)`);
  if (node.type === 'BinaryExpression' && !BINARY_OPS.has(node.operator ?? '')) throw new Error(`operator ${node.operator} is not allowed in filters`);
  if (node.type === 'UnaryExpression' && !UNARY_OPS.has(node.operator ?? '')) throw new Error(`operator ${node.operator} is not allowed in filters`);
  if (node.type === 'MemberExpression') {
    // jsonpath-plus evaluates a computed key without the filter's variables: only a literal works.
    if (node.computed && (node.property as AstNode).type !== 'Literal') throw new Error('only literal keys may be used in [] inside filters');
    return checkAst(node.object as AstNode);
  }
  let operators = ['BinaryExpression', 'UnaryExpression', 'ConditionalExpression'].includes(node.type) ? 1 : 0;
  for (const key of CHILDREN) if (node[key]) operators += checkAst(node[key] as AstNode);
  for (const element of (node.elements as AstNode[] | undefined) ?? []) operators += checkAst(element);
  return operators;
}

/**
 * What a query may still spend. One budget can be shared by several queries (an attempt's
 * assertions and output template), which bounds their work together.
 */
export interface JsonPathBudget {
  remaining: number;
}

export function jsonPathBudget(steps = DEFAULT_JSONPATH_BUDGET): JsonPathBudget {
  return { remaining: steps };
}

class BudgetExceeded extends Error {}

/** A query that outran its budget: the caller may tell this from a path that found nothing or could not run. */
export class JsonPathBudgetExceeded extends Error {}

// The budget of the query being evaluated. Evaluation is synchronous, so one slot is enough;
// jsonpath-plus caches scripts across queries, which is why the budget is not kept in them.
let spending: JsonPathBudget | null = null;

function spend(steps: number): void {
  if (!spending) return;
  spending.remaining -= steps;
  if (spending.remaining < 0) throw new BudgetExceeded('exceeds the evaluation budget');
}

const isObject = (value: unknown): value is object => (typeof value === 'object' && value !== null) || typeof value === 'function';

/** Comparing two strings reads them: long ones cost more than one step. */
function spendComparing(a: unknown, b: unknown): void {
  if (typeof a === 'string' && typeof b === 'string') spend(Math.ceil(Math.min(a.length, b.length) / 256));
}

function number(value: unknown, operator: string): number {
  if (typeof value !== 'number') throw new TypeError(`${operator} needs numbers`);
  return value;
}

// Arrays and objects are never turned into text: `==` between an object and anything else is an
// identity test, and ordering an object is false. Between primitives `==` stays JavaScript's
// loose equality, as jsonpath-plus had it ("3" == 3). Arithmetic takes numbers only, so `+`
// never concatenates.
const BINARY: Record<string, (a: unknown, b: unknown) => unknown> = {
  '==': (a, b) => (isObject(a) || isObject(b) ? a === b : a == b),
  '!=': (a, b) => (isObject(a) || isObject(b) ? a !== b : a != b),
  '===': (a, b) => a === b,
  '!==': (a, b) => a !== b,
  '<': (a, b) => !isObject(a) && !isObject(b) && (a as number) < (b as number),
  '>': (a, b) => !isObject(a) && !isObject(b) && (a as number) > (b as number),
  '<=': (a, b) => !isObject(a) && !isObject(b) && (a as number) <= (b as number),
  '>=': (a, b) => !isObject(a) && !isObject(b) && (a as number) >= (b as number),
  '+': (a, b) => number(a, '+') + number(b, '+'),
  '-': (a, b) => number(a, '-') - number(b, '-'),
  '*': (a, b) => number(a, '*') * number(b, '*'),
  '/': (a, b) => number(a, '/') / number(b, '/'),
  '%': (a, b) => number(a, '%') % number(b, '%'),
};

/** Evaluates a checked filter AST on one node's variables (@ and friends). */
function evaluate(node: AstNode, context: Record<string, unknown>): unknown {
  spend(1);
  switch (node.type) {
    case 'Literal':
      return node.value;
    case 'Identifier':
      if (!Object.hasOwn(context, node.name!)) throw new ReferenceError(`${node.name} is not defined`);
      return context[node.name!];
    case 'MemberExpression': {
      const object = evaluate(node.object as AstNode, context);
      const property = node.property as AstNode;
      const key = String(node.computed ? property.value : property.name);
      if (object === undefined || object === null) throw new TypeError(`cannot read ${key} of ${object}`);
      // Own properties only (a string's characters and length, an array's items and length):
      // nothing inherited, so no method and no prototype is ever reached.
      return Object.hasOwn(Object(object), key) ? (object as Record<string, unknown>)[key] : undefined;
    }
    case 'UnaryExpression': {
      const value = evaluate(node.argument as AstNode, context);
      if (node.operator === '!') return !value;
      return node.operator === '-' ? -number(value, '-') : number(value, '+');
    }
    case 'BinaryExpression': {
      const left = evaluate(node.left as AstNode, context);
      if (node.operator === '&&') return left && evaluate(node.right as AstNode, context);
      if (node.operator === '||') return left || evaluate(node.right as AstNode, context);
      const right = evaluate(node.right as AstNode, context);
      spendComparing(left, right);
      return BINARY[node.operator!](left, right);
    }
    case 'ConditionalExpression':
      return evaluate((evaluate(node.test as AstNode, context) ? node.consequent : node.alternate) as AstNode, context);
    case 'ArrayExpression':
      return (node.elements as AstNode[]).map((element) => evaluate(element, context));
    default:
      throw new SyntaxError(`${node.type} is not allowed in filters`);
  }
}

/** The script engine handed to jsonpath-plus: our evaluator over jsonpath-plus's parse of the filter. */
class RestrictedScript {
  private readonly ast: AstNode;
  constructor(code: string) {
    this.ast = new SafeScript(code).ast;
    const operators = checkAst(this.ast);
    if (operators > MAX_FILTER_OPERATORS) throw new Error(`has more than ${MAX_FILTER_OPERATORS} operators in one filter`);
  }
  runInNewContext(context: Record<string, unknown>): unknown {
    const result = evaluate(this.ast, context);
    // Only its truth matters to a filter; jsonpath-plus would turn an object into text for a
    // script selector ([(...)]), so it never gets one.
    return isObject(result) ? true : result;
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
  if (path.length > MAX_PATH_LENGTH) return `is longer than ${MAX_PATH_LENGTH} characters`;
  try {
    const segments = segmentsOf(path);
    // The last word belongs to jsonpath-plus's own parser: anything it reads differently is refused.
    if (JSON.stringify(segments) !== JSON.stringify(JSONPath.toPathArray(path))) return 'uses syntax this service does not support';
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

type Engine = { _trace: (...args: unknown[]) => unknown; evaluate(options: object): unknown };

/**
 * One match gives its value, several an array of values, none "not found". Throws on a refused
 * path, on more than MAX_MATCHES matches, and when the evaluation outruns `budget` (by default a
 * budget of its own; pass one to bound several queries together).
 */
export function queryJsonPath(path: string, document: unknown, budget: JsonPathBudget = jsonPathBudget()): PathResult {
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
  const options = { path, json: document, eval: RestrictedScript, ignoreEvalErrors: true, callback, wrap: true };
  // Built without running, so _trace can be wrapped first; @root reads the json given here.
  const engine = new (JSONPath as unknown as new (options: object) => Engine)({ ...options, autostart: false });
  // Every node jsonpath-plus visits goes through _trace: charging it bounds the walk itself
  // (recursive descent over a large body), not only the filters.
  const trace = engine._trace;
  engine._trace = function (this: Engine, ...args: unknown[]) {
    spend(1);
    return trace.apply(this, args);
  };
  spending = budget;
  let values: unknown[];
  try {
    values = engine.evaluate(options) as unknown[];
  } catch (error) {
    if (error instanceof BudgetExceeded) throw new JsonPathBudgetExceeded(`JSONPath ${JSON.stringify(path)} ${error.message}`);
    throw error;
  } finally {
    spending = null;
  }
  // A filter that ran out of budget was skipped as a failed filter; the query is still over budget.
  if (budget.remaining < 0) throw new JsonPathBudgetExceeded(`JSONPath ${JSON.stringify(path)} exceeds the evaluation budget`);
  if (values.length === 0) return { found: false };
  return { found: true, value: values.length === 1 ? values[0] : values };
}
