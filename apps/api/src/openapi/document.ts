import { ERROR_STATUS, type ErrorCode } from '@cronsvc/contracts';
import { requestSchemas, requiredScope } from '@cronsvc/core';
import { permissionOf } from '../routes/permissions.js';
import type Joi from 'joi';
import { contractSchemas } from './contract-schemas.js';
import { errors as errorExamples } from './examples.js';
import { jobBodies, type JobBodies } from './job-bodies.js';
import { defaultsInWords, jsonSchema } from './json-schema.js';
import { OPERATIONS, TAGS, type Operation, type Success } from './operations.js';

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function listOf(name: string): Json {
  return {
    type: 'object',
    required: ['data', 'total', 'limit', 'offset'],
    additionalProperties: false,
    properties: { data: { type: 'array', items: ref(name) }, total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } },
  };
}

function bodySchema(kind: NonNullable<Operation['body']>['schema'], jobs: JobBodies): Json {
  if (kind === 'any') return {};
  if (kind === 'decision') return { description: 'Optional: a JSON body, or a form with a `comment`.' };
  if (kind === 'jobCreate') return jobs.create;
  if (kind === 'jobPatch') return jobs.patch;
  if (kind === 'channelCreate' || kind === 'channelPatch') {
    const base = jsonSchema(kind === 'channelCreate' ? requestSchemas.channelCreate : requestSchemas.channelPatch);
    const configs = Object.entries(requestSchemas.channelConfigs).map(([type, schema]) => ({ title: type, ...jsonSchema(schema) }));
    const properties = { ...(base.properties as Json), config: { description: "The channel type's settings; credentials are stored encrypted.", anyOf: configs } };
    return { ...base, properties };
  }
  return jsonSchema(kind);
}

/** Path parameters from the Express pattern; `:token` is the credential of a public endpoint. */
function pathParameters(path: string): Json[] {
  return [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: name === 'token' ? 'The secret token of the URL: it is the credential of this endpoint.' : `The ${name.replace('_', ' ')}.`,
  }));
}

function queryParameters(query: Joi.ObjectSchema | undefined): Json[] {
  if (!query) return [];
  const schema = jsonSchema(query);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties as Record<string, Json>) ?? {}).map(([name, property]) => ({ name, in: 'query', required: required.has(name), schema: property }));
}

/** The errors an operation can answer: its own, and those of its kind (auth, body, id, limits). */
export function errorCodes(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>(op.errors ?? []);
  if (op.auth === 'api' || op.auth === 'admin') codes.add('unauthorized');
  if (op.auth === 'api') codes.add('rate_limited');
  if (op.auth === 'api' && permissionOf(op.method.toUpperCase(), op.path) !== 'read') codes.add('forbidden');
  if (op.auth === 'token') {
    // Public tokens are limited per token (and unknown ones per client address).
    codes.add('rate_limited');
    if (!op.path.startsWith('/v1/triggers/')) codes.add('not_found');
    if (op.path.startsWith('/v1/triggers/')) codes.add('unauthorized');
  }
  if (/:\w+/.test(op.path) && op.auth !== 'token') codes.add('not_found');
  if (op.body) for (const code of ['validation_failed', 'invalid_json', 'payload_too_large'] as const) codes.add(code);
  if (op.body && op.auth !== 'token') codes.add('unsupported_media_type');
  if (op.query) codes.add('validation_failed');
  if (op.auth !== 'none') codes.add('service_unavailable');
  codes.add('internal_error');
  return [...codes];
}

function errorResponses(op: Operation): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(op)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      String(status),
      {
        description: codes.map((c) => `\`${c}\``).join(', '),
        ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } } : {}),
        content: { 'application/json': { schema: ref('ErrorEnvelope'), examples: Object.fromEntries(codes.map((c) => [c, { value: errorExamples[c] }])) } },
      },
    ]),
  );
}

function successResponse(op: Operation, success: Success): Json {
  if (op.path === '/v1/openapi.json') return { description: success.description, content: { 'application/json': { schema: { type: 'object' } } } };
  if (!success.schema) return { description: success.description };
  const schema = typeof success.schema === 'string' ? ref(success.schema) : listOf(success.schema.list);
  const content: Json = { 'application/json': { schema, example: success.example } };
  if (op.path === '/v1/approvals/:token' && op.method === 'get') content['text/html'] = { schema: { type: 'string', description: 'The review page.' } };
  for (const [type, description] of Object.entries(success.otherMedia ?? {})) content[type] = { schema: { type: 'string', description } };
  return { description: success.description, content };
}

function operationObject(op: Operation, jobs: JobBodies): Json {
  const security = op.auth === 'api' ? [{ apiToken: [] }] : op.auth === 'admin' ? [{ adminToken: [] }] : [];
  const headers = (op.headers ?? []).map((h) => ({ name: h.name, in: 'header', required: false, schema: { type: 'string' }, description: h.description }));
  const body = op.body && {
    required: op.body.required,
    ...(op.body.description ? { description: op.body.description } : {}),
    content: {
      'application/json': { schema: defaultsInWords(bodySchema(op.body.schema, jobs)), ...(op.body.example !== undefined ? { example: op.body.example } : {}) },
      ...(op.body.schema === 'decision' ? { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { comment: { type: 'string' } } } } } : {}),
    },
  };
  return {
    operationId: `${op.method}${op.path.replace(/[/:{}-]+(\w)/g, (_, c: string) => c.toUpperCase())}`,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security,
    ...scopeOf(op),
    parameters: [...pathParameters(op.path), ...queryParameters(op.query), ...headers],
    ...(body ? { requestBody: body } : {}),
    responses: {
      ...Object.fromEntries(Object.entries(op.success).map(([status, success]) => [status, successResponse(op, success)])),
      ...errorResponses(op),
    },
  };
}

/**
 * `x-required-scope`, from the one table of route permissions: the token scope the operation
 * needs (`read`, `run`, `full`), or `admin` (the admin token), or `public` (no token).
 */
function scopeOf(op: Operation): Json {
  const permission = permissionOf(op.method.toUpperCase(), op.path);
  return permission ? { 'x-required-scope': requiredScope(permission) } : {};
}

/** The Express pattern as an OpenAPI path: `/v1/jobs/:id` -> `/v1/jobs/{id}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** The OpenAPI 3.1 document of every operation under /v1 and /admin/v1. */
export function buildDocument(publicBaseUrl: string): Json {
  const jobs = jobBodies();
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) paths[openApiPath(op.path)] = { ...paths[openApiPath(op.path)], [op.method]: operationObject(op, jobs) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'cron-service API',
      version: '1',
      description:
        'Scheduled HTTP jobs, workflows, inbound triggers, notifications and heartbeat monitors. JSON in and out; timestamps ISO 8601 UTC with milliseconds. Every error answers `{"error": {"code", "message", "details?"}}`. Every answer carries `X-Request-Id` (yours when it is 1-128 characters of `[A-Za-z0-9._:-]`).',
    },
    servers: [{ url: publicBaseUrl }],
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        apiToken: { type: 'http', scheme: 'bearer', description: "A workspace's API token (`csk_...`), for everything under /v1 except the public endpoints." },
        adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN, for the admin API under /admin/v1.' },
      },
      schemas: { ...contractSchemas, ...Object.fromEntries(Object.entries(jobs.components).map(([name, schema]) => [name, defaultsInWords(schema)])) },
    },
  };
}
