import { createSecret } from '../secrets/create-secret.js';
import { deleteSecret } from '../secrets/delete-secret.js';
import type { RequestSpec } from '@cronsvc/contracts';
import { useWorkspace } from '../../test/factories.js';
import type { TestContext } from '../../test/test-context.js';
import { newExecutionVariables } from '../executions/execution-variables.js';
import { prepareRequest } from './prepare-request.js';

let ctx: TestContext;
let workspaceId: string;
let otherWorkspaceId: string;

const w = useWorkspace({ name: 'a', second: 'b' });
beforeAll(async () => {
  ({ ctx, workspaceId, second: { id: otherWorkspaceId } } = w);
  await createSecret(ctx.runtime, workspaceId, { name: 'API_KEY', value: 'sk_live_"quoted"' });
  await createSecret(ctx.runtime, workspaceId, { name: 'UNUSED', value: 'never-loaded' });
  await createSecret(ctx.runtime, otherWorkspaceId, { name: 'OTHERS', value: 'not-yours' });
});

const variables = { timestamp: '2030-01-02T03:04:05.678Z', uuid: '123e4567-e89b-42d3-a456-426614174000' };
const spec = (over: Partial<RequestSpec>): RequestSpec => ({
  url: 'https://api.example.com/',
  method: 'POST',
  headers: {},
  body: null,
  timeout_seconds: 7,
  success_statuses: [200],
  ...over,
});
const prepare = (s: RequestSpec, ws = workspaceId) => prepareRequest(ctx.runtime, { workspaceId: ws, executionId: 'exe_1', spec: s, variables });

describe('prepareRequest', () => {
  it('renders URL, header values and JSON body strings with decrypted secrets, and encodes the body as JSON', async () => {
    const result = await prepare(
      spec({
        url: 'https://api.example.com/items/{{uuid}}?at={{ timestamp }}',
        headers: { Authorization: 'Bearer {{secret.API_KEY}}' },
        body: { run: '{{execution_id}}', tags: ['{{secret.API_KEY}}', 3] },
      }),
    );
    expect(result).toEqual({
      ok: true,
      secretValues: ['sk_live_"quoted"'],
      request: {
        url: `https://api.example.com/items/${variables.uuid}?at=${variables.timestamp}`,
        workspaceId,
        method: 'POST',
        headers: { Authorization: 'Bearer sk_live_"quoted"', 'Content-Type': 'application/json', 'X-Cron-Service-Execution-Id': 'exe_1' },
        body: JSON.stringify({ run: 'exe_1', tags: ['sk_live_"quoted"', 3] }),
        timeoutMs: 7000,
      },
      // What the attempt records: [secret] exactly where the value went.
      shown: {
        url: `https://api.example.com/items/${variables.uuid}?at=${variables.timestamp}`,
        workspaceId,
        method: 'POST',
        headers: { Authorization: 'Bearer [secret]', 'Content-Type': 'application/json', 'X-Cron-Service-Execution-Id': 'exe_1' },
        body: JSON.stringify({ run: 'exe_1', tags: ['[secret]', 3] }),
        timeoutMs: 7000,
      },
    });
  });

  it('sends a rendered string body as text/plain unless the job sets a Content-Type', async () => {
    const plain = await prepare(spec({ body: 'id={{uuid}}' }));
    const xml = await prepare(spec({ body: '<id>{{uuid}}</id>', headers: { 'content-type': 'application/xml' } }));
    expect(plain.ok && [plain.request.body, plain.request.headers['Content-Type']]).toEqual([`id=${variables.uuid}`, 'text/plain; charset=utf-8']);
    expect(xml.ok && [xml.request.body, xml.request.headers]).toEqual([
      `<id>${variables.uuid}</id>`,
      { 'content-type': 'application/xml', 'X-Cron-Service-Execution-Id': 'exe_1' },
    ]);
  });

  it('sends no body and lists no secret values for a request without secrets, which it records as sent', async () => {
    const result = await prepare(spec({ method: 'GET' }));
    expect(result.ok && [result.request.body, result.secretValues]).toEqual([null, []]);
    expect(result.ok && result.shown).toBe(result.ok && result.request);
  });

  it('fails with SECRET_NOT_FOUND naming a secret deleted since the job was saved, without its value', async () => {
    const doomed = await createSecret(ctx.runtime, workspaceId, { name: 'DOOMED', value: 'doomed-value' });
    await deleteSecret(ctx.runtime, workspaceId, doomed.id);
    const result = await prepare(spec({ headers: { A: '{{secret.API_KEY}}', B: '{{secret.DOOMED}}' } }));
    expect(result).toEqual({ ok: false, errorClass: 'SECRET_NOT_FOUND', message: expect.stringContaining('"DOOMED"') });
    expect(JSON.stringify(result)).not.toContain('doomed-value');
    expect(JSON.stringify(result)).not.toContain('sk_live');
  });

  it("never uses another workspace's secret of the same name", async () => {
    const result = await prepare(spec({ headers: { A: '{{secret.OTHERS}}' } }));
    expect(result).toMatchObject({ ok: false, errorClass: 'SECRET_NOT_FOUND' });
    const theirs = await prepare(spec({ headers: { A: '{{secret.OTHERS}}' } }), otherWorkspaceId);
    expect(theirs.ok && theirs.request.headers.A).toBe('not-yours');
  });
});

describe('newExecutionVariables', () => {
  it('gives the start time as ISO 8601 UTC with milliseconds and a fresh v4 uuid each time', () => {
    const now = new Date('2031-05-06T07:08:09.010Z');
    const a = newExecutionVariables(now);
    const b = newExecutionVariables(now);
    expect(a.timestamp).toBe('2031-05-06T07:08:09.010Z');
    expect(a.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b.uuid).not.toBe(a.uuid);
  });
});
