import { createSecret, runNow, type ExecutionWithAttempts } from '@cronsvc/core';
import { aJob, finishedExecution, useRawTargetServer, type TestContext } from '@cronsvc/core/testing';
import { useExecutorFixture } from './executor-fixture.js';

// Two workspaces calling the same host through one executor. A job must not be able to frame its
// own request (a Content-Length of its own with a body that holds a second request), and a
// connection that carried one workspace's request never carries another's (docs/SECURITY.md,
// "Outbound requests"). The target is a bare net server, so the test sees the bytes as sent.

let ctx: TestContext;
let attacker: string;
let victim: string;

const fixture = useExecutorFixture({ workspace: 'attacker', second: 'victim' });
beforeAll(() => ({ ctx, workspaceId: attacker, second: { id: victim } } = fixture));
const raw = useRawTargetServer();

// A request the target would read as the next one on the connection; its Content-Length makes
// it swallow the first bytes of whatever the connection carries next as its body.
const SMUGGLED = 'GET /smuggled HTTP/1.1\r\nHost: target\r\nContent-Length: 120\r\n\r\n';

/** A job to `path` on the raw target that never fires on its own: the tests run it with run-now. */
const savedJob = async (workspaceId: string, path: string, extra: Record<string, unknown> = {}) =>
  (await aJob(ctx.runtime, workspaceId, { request: { url: `${raw().url}${path}` }, ...extra })).id;

async function runToEnd(workspaceId: string, jobId: string): Promise<ExecutionWithAttempts> {
  const { id } = await runNow(ctx.runtime, workspaceId, jobId);
  return finishedExecution(ctx.runtime, workspaceId, id);
}

/** Every request the target parsed, in the order it arrived, with the connection it came on. */
const requests = () => raw().connections.flatMap((c) => c.requests.map((r) => ({ connection: c.id, ...r }))).sort((a, b) => a.seq - b.seq);

describe('a job that frames its own request (stored before framing headers were refused)', () => {
  it('sends its body as its body: nothing is left on the connection for the next workspace to receive', async () => {
    const attackerJob = await savedJob(attacker, '/attacker');
    // Save-time validation refuses these headers now; a job stored before that still holds them.
    await ctx.runtime.db.job.update({
      where: { id: attackerJob },
      data: { request: { url: `${raw().url}/attacker`, method: 'POST', headers: { 'Content-Length': '0' }, body: SMUGGLED, timeout_seconds: 5, success_statuses: [200] } },
    });
    const victimJob = await savedJob(victim, '/victim');

    const first = await runToEnd(attacker, attackerJob);
    expect(first.status).toBe('succeeded');
    const second = await runToEnd(victim, victimJob);

    // The victim got the answer to its own request, not to the smuggled one.
    expect(second).toMatchObject({ status: 'succeeded', finalResponse: { statusCode: 200, bodyPreview: 'answer to GET /victim' } });
    // The target saw exactly two requests, the attacker's carrying the smuggled text as its body, framed by its real length.
    expect(requests().map((r) => `${r.method} ${r.path}`)).toEqual(['POST /attacker', 'GET /victim']);
    const [sent] = requests();
    expect(sent.body).toBe(SMUGGLED);
    expect(sent.headers['content-length']).toBe(String(SMUGGLED.length));
    expect(sent.headers['transfer-encoding']).toBeUndefined();
    // Nothing of the victim's request reached the attacker's connection.
    const attackerConnection = raw().connections.find((c) => c.requests.some((r) => r.path === '/attacker'))!;
    expect(attackerConnection.bytes).not.toContain(second.id);
  });
});

describe('keep-alive connections and workspaces', () => {
  it("never sends a workspace's request on a connection that carried another workspace's", async () => {
    const jobs = { attacker: await savedJob(attacker, '/a'), victim: await savedJob(victim, '/v') };
    await runToEnd(attacker, jobs.attacker);
    await runToEnd(victim, jobs.victim);
    await runToEnd(attacker, jobs.attacker);

    const seen = requests().map((r) => ({ connection: r.connection, path: r.path }));
    expect(seen.map((r) => r.path)).toEqual(['/a', '/v', '/a']);
    // The victim's request opened a connection of its own; the attacker's second request reused the attacker's.
    expect(seen[1].connection).not.toBe(seen[0].connection);
    expect(seen[2].connection).toBe(seen[0].connection);
    for (const connection of raw().connections) {
      expect(new Set(connection.requests.map((r) => r.path)).size).toBe(1);
    }
  });
});

describe('a header value that turns bad when rendered', () => {
  it('fails the attempt before anything is sent when a secret puts CR LF into a header', async () => {
    const value = 'sk_live_zz\r\nContent-Length: 0\r\n\r\nGET /smuggled HTTP/1.1';
    await createSecret(ctx.runtime, attacker, { name: 'INJECTED', value });
    const jobId = await savedJob(attacker, '/injected', {
      request: { url: `${raw().url}/injected`, headers: { 'X-Api-Key': '{{secret.INJECTED}}' } },
      retry_policy: { max_attempts: 1 },
    });
    const exe = await runToEnd(attacker, jobId);
    expect(exe).toMatchObject({ status: 'failed', errorClass: 'CONNECTION_ERROR', finalResponse: null });
    expect(exe.attempts[0].errorMessage).toMatch(/^header "X-Api-Key" cannot be sent: its value holds CR, LF, NUL/);
    expect(exe.attempts[0].errorMessage).not.toContain('sk_live_zz');
    expect(raw().connections).toHaveLength(0);
  });
});
