import type Joi from 'joi';

/**
 * Fields whose rules are chosen by another field of the same object: a job's `schedule`,
 * `request` and `steps` by its `kind`, a step's fields by its `type`. When the choosing field is
 * itself wrong (an unknown kind, a missing type), what the others were checked against is a
 * guess, so their problems are noise: a bad `kind` is reported as the bad `kind`, not as every
 * field that kind would have needed. Read from the schema's own description, so a new
 * conditional field is covered without a list kept by hand.
 */
export interface Dependency {
  /** The object's path; `*` stands for any array index. */
  parent: string[];
  /** The field that chooses the rules. */
  chooser: string;
  /** The fields whose rules it chooses. */
  dependents: string[];
}

interface Description {
  type?: string;
  keys?: Record<string, Description>;
  items?: Description[];
  matches?: { ref?: Reference; schema?: Description; then?: Description; otherwise?: Description; switch?: Case[] }[];
  whens?: { ref?: Reference; is?: Description; then?: Description; otherwise?: Description; switch?: Case[] }[];
}
interface Reference {
  path: string[];
  ancestor?: number | 'root';
}
interface Case {
  then?: Description;
  otherwise?: Description;
}

function branches(entry: { schema?: Description; then?: Description; otherwise?: Description; switch?: Case[] }): Description[] {
  const found = [entry.schema, entry.then, entry.otherwise, ...(entry.switch ?? []).flatMap((c) => [c.then, c.otherwise])];
  return found.filter((d): d is Description => d !== undefined);
}

function walk(description: Description, path: string[], out: Dependency[]): void {
  for (const [key, child] of Object.entries(description.keys ?? {})) {
    for (const when of child.whens ?? []) {
      // A sibling: Joi.when('kind') refers to the parent object's field (ancestor 1, the default).
      if (when.ref && when.ref.path.length === 1 && (when.ref.ancestor ?? 1) === 1) out.push({ parent: path, chooser: when.ref.path[0], dependents: [key] });
    }
    walk(child, [...path, key], out);
    for (const when of child.whens ?? []) for (const branch of branches(when)) walk(branch, [...path, key], out);
  }
  for (const item of description.items ?? []) walk(item, [...path, '*'], out);
  for (const match of description.matches ?? []) {
    // alternatives().conditional('.type'): the value's own field chooses which object schema
    // applies; the fields that only some of those schemas have are the ones it chooses.
    if (match.ref && match.ref.path.length === 1 && match.ref.ancestor === 0) {
      const keySets = branches(match).map((b) => Object.keys(b.keys ?? {}));
      const dependents = [...new Set(keySets.flat())].filter((key) => !keySets.every((keys) => keys.includes(key)));
      if (dependents.length > 0) out.push({ parent: path, chooser: match.ref.path[0], dependents });
    }
    for (const branch of branches(match)) walk(branch, path, out);
  }
}

const cache = new WeakMap<Joi.Schema, Dependency[]>();

export function dependenciesOf(schema: Joi.Schema): Dependency[] {
  let found = cache.get(schema);
  if (!found) {
    found = [];
    walk(schema.describe() as Description, [], found);
    cache.set(schema, found);
  }
  return found;
}

const matches = (pattern: string[], path: (string | number)[]) =>
  pattern.length <= path.length && pattern.every((part, i) => part === '*' ? typeof path[i] === 'number' : part === String(path[i]));

/**
 * The problems worth reporting: those of a field whose rules were chosen by a field that is
 * itself wrong are left out.
 */
export function withoutDependentProblems<T extends { path: (string | number)[] }>(schema: Joi.Schema, problems: T[]): T[] {
  const wrong = problems.map((p) => p.path);
  const isWrong = (path: (string | number)[]) => wrong.some((w) => w.length === path.length && w.every((part, i) => part === path[i]));
  const noise = (path: (string | number)[]) =>
    dependenciesOf(schema).some((dep) => {
      if (!matches(dep.parent, path) || path.length <= dep.parent.length) return false;
      const parent = path.slice(0, dep.parent.length);
      const field = String(path[dep.parent.length]);
      if (field === dep.chooser || !isWrong([...parent, dep.chooser])) return false;
      return dep.dependents.includes(field);
    });
  return problems.filter((p) => !noise(p.path));
}
