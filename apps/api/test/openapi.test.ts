import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { ERROR_CODES } from '@cronsvc/contracts';
import { CONTRACT_SCHEMAS_FILE, contractSchemas, contractSchemasModule, contractTypeSchemas } from '../../../scripts/contract-schemas.js';
import { listRoutes } from '../src/routes/route-table.js';
import { openApiPath } from '../src/openapi/document.js';
import { useApiApp } from './api-app.js';
import { openApi } from './openapi-document.js';

// The OpenAPI document is built from the operation table, the joi schemas the API validates
// with, and JSON Schemas generated from the contract types; these tests fail when a route, a
// field, an answer or an error is missing from it.
const api = useApiApp();
const spec = openApi();
type Json = Record<string, unknown>;

it('is served at /v1/openapi.json without a token, and is a valid OpenAPI 3.1 document', async () => {
  const res = await request(api.app).get('/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.openapi).toBe('3.1.0');
  expect(await new Validator().validate(res.body)).toEqual({ valid: true });
});

it('has every route the API answers under /v1 and /admin/v1, and no other', () => {
  const routes = listRoutes(api.app)
    .filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/admin/v1/'))
    .map((r) => `${r.method} ${openApiPath(r.path)}`)
    .sort();
  expect(routes.length).toBeGreaterThan(60);
  expect(spec.operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(routes);
});

describe.each(spec.operations.map((o) => [`${o.method} ${o.path}`, o] as const))('%s', (_name, { method, path, operation }) => {
  const responses = operation.responses as Record<string, Json>;
  const successes = Object.keys(responses).filter((s) => s.startsWith('2'));

  it('names its auth: bearer API token under /v1, the admin token under /admin/v1, the token in the path on public endpoints', () => {
    const security = operation.security as Json[];
    if (path.startsWith('/admin/v1/')) expect(security).toEqual([{ adminToken: [] }]);
    else if (/^\/v1\/(ping|triggers|resume|approvals|snooze|badges|status)\//.test(path)) {
      expect(security).toEqual([]);
      expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'token', in: 'path', required: true })]));
    } else if (path === '/v1/openapi.json') expect(security).toEqual([]);
    else expect(security).toEqual([{ apiToken: [] }]);
  });

  it('documents a success with an example that fits its schema', () => {
    expect(successes.length).toBeGreaterThan(0);
    for (const status of successes) {
      const content = responses[status].content as Record<string, Json> | undefined;
      if (status === '204' || path === '/v1/openapi.json') continue;
      expect([status, content?.['application/json']?.example]).not.toEqual([status, undefined]);
      expect(spec.problems(['paths', path, method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema'], content!['application/json'].example)).toEqual([]);
    }
  });

  it('documents its errors in the error envelope, each with an example that fits it', () => {
    const errors = Object.entries(responses).filter(([status]) => Number(status) >= 400);
    expect(errors.map(([status]) => status)).toContain('500');
    for (const [, response] of errors) {
      const content = (response.content as Record<string, Json>)['application/json'];
      expect(content.schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
      for (const [code, example] of Object.entries(content.examples as Record<string, { value: unknown }>)) {
        expect(ERROR_CODES).toContain(code);
        expect(spec.problems(['components', 'schemas', 'ErrorEnvelope'], example.value)).toEqual([]);
      }
    }
    if (path.includes('{id}')) expect(Object.keys(responses)).toContain('404');
    if (operation.requestBody) expect(Object.keys(responses)).toEqual(expect.arrayContaining(['400', '413']));
  });

  it('has a request body example that fits its schema', () => {
    const body = operation.requestBody as { content: Record<string, { schema: Json; example?: unknown }> } | undefined;
    const example = body?.content['application/json']?.example;
    if (example === undefined) return;
    expect(spec.problems(['paths', path, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema'], example)).toEqual([]);
  });
});

it('describes the answers with the schemas generated from the contract types, kept up to date', async () => {
  expect(await readFile(CONTRACT_SCHEMAS_FILE, 'utf8')).toBe(contractSchemasModule(contractSchemas()));
});

/** The fields a body schema names, over every member of a oneOf (a job's kinds). */
function fieldsOf(schema: Json): string[] {
  const resolved = typeof schema.$ref === 'string' ? (spec.document.components as { schemas: Record<string, Json> }).schemas[schema.$ref.split('/').pop()!] : schema;
  const own = Object.keys((resolved.properties as Json | undefined) ?? {});
  return [...new Set([...own, ...((resolved.oneOf as Json[] | undefined) ?? []).flatMap(fieldsOf)])];
}

it('asks for the fields the contract types name as request bodies', () => {
  // The request schemas come from joi, what the API validates with; the contract's input types
  // are what the typed client sends. Their fields must be the same.
  const pairs: [string, string, string][] = [
    ['JobInput', 'post', '/v1/jobs'],
    ['ImportInput', 'post', '/v1/jobs/import'],
    ['SecretInput', 'post', '/v1/secrets'],
    ['SecretPatch', 'patch', '/v1/secrets/{id}'],
    ['ChannelInput', 'post', '/v1/notification-channels'],
    ['ChannelPatch', 'patch', '/v1/notification-channels/{id}'],
    ['MonitorInput', 'post', '/v1/monitors'],
    ['MonitorPatch', 'patch', '/v1/monitors/{id}'],
    ['RuleInput', 'post', '/v1/jobs/{id}/notification-rules'],
    ['PurgeInput', 'post', '/v1/dlq/purge'],
    ['WorkspaceInput', 'post', '/admin/v1/workspaces'],
    ['JobListQuery', 'get', '/v1/jobs'],
    ['ExecutionListQuery', 'get', '/v1/executions'],
    ['DeliveryListQuery', 'get', '/v1/notification-deliveries'],
    ['MonitorListQuery', 'get', '/v1/monitors'],
  ];
  const contract = contractTypeSchemas(pairs.map(([type]) => type));
  for (const [type, method, path] of pairs) {
    const operation = (spec.document.paths[path] as Record<string, Json>)[method];
    const fields = method === 'get'
      ? (operation.parameters as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name)
      : fieldsOf((operation.requestBody as { content: Record<string, { schema: Json }> }).content['application/json'].schema);
    expect([type, fields.sort()]).toEqual([type, Object.keys((contract[type].properties as Json) ?? {}).sort()]);
  }
});
