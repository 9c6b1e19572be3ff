import type Joi from 'joi';
import joiToJson from 'joi-to-json';

/**
 * Joi schemas as JSON Schema (OpenAPI 3.1 is JSON Schema 2020-12) that client generators read
 * as precisely as the rules allow. joi-to-json writes some rules in ways that are valid JSON
 * Schema but leave generated types loose or wrong, and linters unhappy; `tidy` rewrites those
 * into the same constraint said plainly (the cases are listed there).
 */

type Json = Record<string, unknown>;
type Description = Record<string, unknown>;

// A CommonJS module whose export is the function itself; its typings declare it as the default
// export of an ES module, which it is not.
const parse = joiToJson as unknown as (schema: { describe(): Description }, type: 'open-api-3.1') => Json;

const ALL_TYPES = ['array', 'boolean', 'number', 'object', 'string', 'null'];
const MAP_VALUES = 'x-map-values';

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const forbids = (schema: unknown) => isObject(schema) && Object.keys(schema).length === 1 && isObject(schema.not) && Object.keys(schema.not).length === 0;

/**
 * joi-to-json renders a map as an object that admits no key at all: `Joi.object()` without keys
 * (which admits any), and one whose keys joi checks with a schema (`.pattern(Joi.string()...)`:
 * request headers, context keys). The values such a map takes (those of the last pattern that
 * allows a key, or any value) are kept aside in a meta key, to become `additionalProperties`.
 */
function markMaps(description: unknown): unknown {
  if (Array.isArray(description)) return description.map(markMaps);
  if (!isObject(description)) return description;
  const out = Object.fromEntries(Object.entries(description).map(([key, inner]) => [key, markMaps(inner)]));
  if (out.type !== 'object' || out.keys !== undefined) return out;
  const patterns = (out.patterns ?? []) as { regex?: string; rule?: Description }[];
  if (patterns.some((p) => p.regex !== undefined)) return out;
  const allowed = patterns.filter((p) => (p.rule?.flags as Json | undefined)?.presence !== 'forbidden');
  const values = allowed.length ? allowed[allowed.length - 1].rule : null;
  return { ...out, patterns: undefined, metas: [...((out.metas as unknown[]) ?? []), { [MAP_VALUES]: values }] };
}

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) => (isObject(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b))) : inner));

function withoutDuplicates(members: unknown[]): unknown[] {
  const seen = new Set<string>();
  return members.filter((member) => !forbids(member) && !seen.has(canonical(member)) && seen.add(canonical(member)));
}

/** `{ids, job_id}` with joi's xor(ids, job_id) comes as if/then: false/else: oneOf required; said as a oneOf of objects. */
function xorAsOneOf(schema: Json): Json {
  const branches = ((schema.else as Json | undefined)?.oneOf as Json[] | undefined) ?? [];
  const names = branches.map((b) => (b.required as string[] | undefined)?.[0]);
  if (schema.then !== false || branches.length === 0 || names.some((n) => n === undefined)) return schema;
  const { if: _if, then: _then, else: _else, properties = {}, required = [], additionalProperties, ...rest } = schema as Json & { properties?: Json; required?: string[] };
  const shared = Object.fromEntries(Object.entries(properties).filter(([key]) => !names.includes(key)));
  return {
    ...rest,
    oneOf: names.map((name) => ({
      type: 'object',
      properties: { ...shared, [name!]: properties[name!] },
      required: [...required, name],
      additionalProperties,
    })),
  };
}

/**
 * What joi-to-json writes, rewritten, bottom-up:
 * - a `type` listing every JSON type (joi's any()) says nothing: removed, so it reads as any value;
 * - a forbidden field (`{not: {}}`) of a closed object is left out: `additionalProperties: false` refuses it already;
 * - forbidden and repeated members of anyOf/oneOf are dropped, and a lone member is the schema;
 * - `type: "null"` beside anyOf (alternatives that allow null) becomes a null member;
 * - a regex-keyed map's pattern, also written as a property name, is left in patternProperties;
 * - a map kept aside by markMaps gets its values as `additionalProperties`;
 * - joi's xor becomes a oneOf of objects.
 */
export function tidy(value: unknown, convert: (description: Description) => Json = (d) => jsonSchemaOf(d)): unknown {
  if (Array.isArray(value)) return value.map((inner) => tidy(inner, convert));
  if (!isObject(value)) return value;
  let schema = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, key === MAP_VALUES ? inner : tidy(inner, convert)])) as Json;

  if (Array.isArray(schema.type) && ALL_TYPES.every((t) => (schema.type as string[]).includes(t))) delete schema.type;
  if (isObject(schema.properties)) {
    const properties = schema.properties;
    const patterns = isObject(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
    const closed = schema.additionalProperties === false;
    const dropped = Object.keys(properties).filter((key) => (closed && forbids(properties[key])) || patterns.some((p) => key === `/${p}/`));
    for (const key of dropped) delete properties[key];
    if (Array.isArray(schema.required)) schema.required = schema.required.filter((key) => !dropped.includes(key as string));
    if (Array.isArray(schema.required) && schema.required.length === 0) delete schema.required;
    if (Object.keys(properties).length === 0) delete schema.properties;
  }
  if (schema[MAP_VALUES] !== undefined) {
    const { [MAP_VALUES]: values, properties: _properties, ...rest } = schema;
    schema = { ...rest, additionalProperties: values === null ? {} : convert(values as Description) };
  }
  if (schema.then === false) schema = xorAsOneOf(schema);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(schema[key])) continue;
    let members = withoutDuplicates(schema[key] as unknown[]);
    if (schema.type === 'null') {
      members = [...members, { type: 'null' }];
      delete schema.type;
    }
    const { [key]: _members, ...rest } = schema;
    schema = members.length === 1 && rest.type === undefined ? { ...rest, ...(members[0] as Json) } : { ...rest, [key]: members };
  }
  return schema;
}

function jsonSchemaOf(description: Description): Json {
  return tidy(parse({ describe: () => markMaps(description) as Description }, 'open-api-3.1')) as Json;
}

/** A joi schema as tidy JSON Schema. */
export function jsonSchema(schema: Joi.Schema): Json {
  return JSON.parse(JSON.stringify(jsonSchemaOf(schema.describe() as unknown as Description))) as Json;
}

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs'];
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

/** Applies `change` to a schema and to every schema inside it. */
export function everySchema(schema: Json, change: (schema: Json) => Json): Json {
  const out: Json = { ...schema };
  for (const key of SUBSCHEMA_MAPS) {
    if (isObject(out[key])) out[key] = Object.fromEntries(Object.entries(out[key]).map(([name, inner]) => [name, isObject(inner) ? everySchema(inner, change) : inner]));
  }
  for (const key of SUBSCHEMAS) if (isObject(out[key])) out[key] = everySchema(out[key], change);
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((inner) => (isObject(inner) ? everySchema(inner, change) : inner));
  return change(out);
}

/**
 * A request body's defaults said in words. A field with a `default` is one the service fills in
 * when it is left out; openapi-typescript (by default) types such a field as always present,
 * which would make a client send every defaulted field. Joi's "the inner defaults" marker on an
 * object says nothing a reader needs: dropped.
 */
export function defaultsInWords(schema: Json): Json {
  return everySchema(schema, (inner) => {
    if (!('default' in inner)) return inner;
    const { default: value, ...rest } = inner;
    if (isObject(value) && value.special === 'deep') return rest;
    const words = `Default: \`${JSON.stringify(value)}\`.`;
    return { ...rest, description: typeof rest.description === 'string' ? `${rest.description} ${words}` : words };
  });
}
