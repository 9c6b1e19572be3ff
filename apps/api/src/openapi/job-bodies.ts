import { JOB_KINDS, STEP_TYPES } from '@cronsvc/contracts';
import { requestSchemas } from '@cronsvc/core';
import { jsonSchema } from './json-schema.js';

/**
 * The bodies of POST and PATCH /v1/jobs. A job's fields depend on its kind, and a step's on its
 * type; joi says so with conditions, which JSON Schema generators cannot follow. So the document
 * has one schema per kind and per step type (from the same joi parts the API validates with),
 * chosen by a discriminator, and a generated client types `schedule`, `request` and `steps` as
 * each kind takes them.
 */

type Json = Record<string, unknown>;

const pascal = (name: string) => name.replace(/(^|_)(\w)/g, (_m, _sep, c: string) => c.toUpperCase());
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const kindComponent = (kind: string) => `${pascal(kind)}JobInput`;
const stepComponent = (type: string) => `${pascal(type)}StepInput`;

function chosenBy(propertyName: string, names: Record<string, string>): Json {
  return {
    oneOf: Object.values(names).map(ref),
    discriminator: { propertyName, mapping: Object.fromEntries(Object.entries(names).map(([value, name]) => [value, ref(name).$ref])) },
  };
}

/** Also null, which a PATCH sends to return a field to its default. */
function nullable(schema: Json): Json {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.type)) return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  return Object.keys(schema).length === 0 ? schema : { anyOf: [schema, { type: 'null' }] };
}

/** An object a PATCH merges one level deep: every field optional, null returns it to its default. */
function merged(schema: Json): Json {
  const { required: _required, properties = {}, ...rest } = schema as Json & { properties?: Record<string, Json> };
  return { ...rest, properties: Object.fromEntries(Object.entries(properties).map(([key, inner]) => [key, nullable(inner)])) };
}

export interface JobBodies {
  components: Record<string, Json>;
  create: Json;
  patch: Json;
}

export function jobBodies(): JobBodies {
  const steps = chosenBy('type', Object.fromEntries(STEP_TYPES.map((type) => [type, stepComponent(type)])));
  const components: Record<string, Json> = { RequestInput: jsonSchema(requestSchemas.jobRequest) };
  for (const type of STEP_TYPES) components[stepComponent(type)] = jsonSchema(requestSchemas.stepOfType[type]);
  for (const kind of JOB_KINDS) {
    const schema = jsonSchema(requestSchemas.jobOfKind[kind]);
    const properties = schema.properties as Record<string, Json>;
    if (properties.request) properties.request = ref('RequestInput');
    if (properties.steps) properties.steps = { ...properties.steps, items: steps };
    components[kindComponent(kind)] = schema;
  }

  // PATCH may change the kind, so it takes any kind's fields, each optional.
  const fields: Record<string, Json> = {};
  const schedules: Json[] = [];
  for (const kind of JOB_KINDS) {
    for (const [key, value] of Object.entries(components[kindComponent(kind)].properties as Record<string, Json>)) {
      if (key === 'schedule' && !schedules.some((s) => JSON.stringify(s) === JSON.stringify(value))) schedules.push(value);
      fields[key] ??= value;
    }
  }
  components.RequestPatch = merged(components.RequestInput);
  const patch: Json = {
    type: 'object',
    minProperties: 1,
    additionalProperties: false,
    properties: {
      ...fields,
      kind: { type: 'string', enum: [...JOB_KINDS] },
      schedule: { anyOf: schedules },
      request: ref('RequestPatch'),
      retry_policy: merged(fields.retry_policy),
    },
  };
  return { components, create: chosenBy('kind', Object.fromEntries(JOB_KINDS.map((kind) => [kind, kindComponent(kind)]))), patch };
}
