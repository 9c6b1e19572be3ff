import type { ApiToken, ApiTokenCreated, AuditEvent, ListEnvelope } from '@cronsvc/contracts';
import { useCliApi } from './cli-harness.js';

const api = useCliApi();
const LONG_TEST_MS = 120_000;

describe('cronsvc tokens and audit', () => {
  it('creates a read token shown once, lists it, shows the audit log, and revokes it', async () => {
    const made = await api.json<ApiTokenCreated>(['tokens', 'create', '--name', 'dashboard', '--scope', 'read']);
    expect(made).toMatchObject({ id: expect.stringMatching(/^tok_/), name: 'dashboard', scope: 'read', api_token: expect.stringMatching(/^csk_/) });
    const shown = await api.cli(['tokens', 'create', '--name', 'printed']);
    expect(shown.stdout).toMatch(/Token\s+csk_\S+\n\nThe token is shown this once/);
    expect((await api.cli(['tokens', 'create', '--scope', 'root'])).code).toBe(2);

    const list = await api.json<ListEnvelope<ApiToken>>(['tokens', 'list']);
    expect(list.data.find((t) => t.id === made.id)).toMatchObject({ name: 'dashboard', scope: 'read', prefix: made.api_token.slice(0, 12) });
    expect(JSON.stringify(list)).not.toContain(made.api_token);
    expect((await api.cli(['tokens', 'list'])).stdout).toMatch(/^ID\s+NAME\s+SCOPE\s+STARTS WITH\s+LAST USED\s+EXPIRES\n/);

    expect(await api.cli(['tokens', 'revoke', made.id])).toMatchObject({ code: 0, stdout: `revoked ${made.id}\n` });
    const audit = await api.json<ListEnvelope<AuditEvent>>(['audit', '--action', 'token.deleted']);
    expect(audit.data.map((e) => [e.action, e.target_id])).toEqual([['token.deleted', made.id]]);
    expect((await api.cli(['audit', '--target', made.id])).stdout).toMatch(/^WHEN\s+ACTION\s+TARGET\s+BY\s+FIELDS\n.*token\.deleted/);
  }, LONG_TEST_MS);
});
