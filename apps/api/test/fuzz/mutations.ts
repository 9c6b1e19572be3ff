import fc from 'fast-check';
import { hostileKey, hostileValue, Many, Nested, Repeated } from './hostile-values.js';

/**
 * Bodies near a real schema: a valid body with a few of its fields changed. Each change picks a
 * place in the body (by index, so it shrinks towards the first), and replaces what is there,
 * removes it, or adds a key (a prototype key, NUL, an unknown field) or an item beside it.
 * Zero changes sends the valid body itself, so the fuzzed route also succeeds and moves on.
 */

type Path = (string | number)[];

interface Mutation {
  at: number;
  op: 'replace' | 'remove' | 'add';
  key: string;
  value: unknown;
}

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] =>
  typeof value === 'object' && value !== null && !(value instanceof Repeated) && !(value instanceof Nested) && !(value instanceof Many);

/** Every place in `value`, the whole value first. */
function placesIn(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (isContainer(value)) for (const [key, child] of Object.entries(value)) placesIn(child, [...path, Array.isArray(value) ? Number(key) : key], out);
  return out;
}

/** Sets an own, enumerable property, so `__proto__` is a key of the JSON sent rather than the object's prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function apply(body: unknown, { at, op, key, value: shared }: Mutation): unknown {
  // Generated values may be shared (constants, values kept while shrinking): change only a copy.
  const mutation = { at, op, key, value: isContainer(shared) ? structuredClone(shared) : shared };
  const places = placesIn(body);
  const path = places[mutation.at % places.length];
  if (path.length === 0) {
    if (mutation.op === 'add' && isContainer(body)) {
      if (Array.isArray(body)) body.push(mutation.value);
      else setOwn(body, mutation.key, mutation.value);
      return body;
    }
    return mutation.op === 'remove' ? undefined : mutation.value;
  }
  const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], body);
  const last = path[path.length - 1];
  const here = parent[last];
  if (mutation.op === 'remove') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (mutation.op === 'add' && isContainer(here)) {
    if (Array.isArray(here)) here.push(mutation.value);
    else setOwn(here, mutation.key, mutation.value);
  } else if (Array.isArray(parent)) parent[last as number] = mutation.value;
  else setOwn(parent, last as string, mutation.value);
  return body;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat({ max: 200 }),
  op: fc.constantFrom('replace', 'replace', 'remove', 'add'),
  key: hostileKey,
  value: hostileValue,
});

/** One of `bases` (plain JSON values) with up to three changes. */
export function mutated(bases: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const changes = fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) });
  return fc.tuple(bases, changes).map(([base, list]) => list.reduce((body, change) => apply(body, change), structuredClone(base)));
}
