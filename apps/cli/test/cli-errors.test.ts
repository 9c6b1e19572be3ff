import type { Execution, Job, Monitor } from '@cronsvc/contracts';
import type { Command } from 'commander';
import { createProgram } from '../src/program.js';
import { useCliApi } from './cli-harness.js';

// Getting a command wrong, and errors with --json: the real binary against the real API.
const api = useCliApi();
const LONG_TEST_MS = 120_000;

/** The API's own answer to a request, for comparing with what the CLI prints. */
async function apiAnswer(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${api.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

describe('show, and unknown commands', () => {
  it('takes show for get on every resource that has get', async () => {
    const job = await api.json<Job>(['jobs', 'create', '--name', 'shown', '--every', '60', '--url', `${api.target.url}/shown`]);
    const execution = await api.json<Execution>(['jobs', 'run', job.id]);
    const monitor = await api.json<Monitor>(['monitors', 'create', '--name', 'shown', '--interval', '60']);
    for (const [group, id] of [['jobs', job.id], ['executions', execution.id], ['monitors', monitor.id], ['signing-key', undefined]] as const) {
      const args = (command: string) => [group, command, ...(id ? [id] : [])];
      const [got, shown] = await Promise.all([api.json(args('get')), api.json(args('show'))]);
      expect([group, shown]).toEqual([group, got]);
    }
    const every = (command: Command): Command[] => [command, ...command.commands.flatMap(every)];
    const gets = every(createProgram()).filter((c) => c.name() === 'get');
    expect(gets.map((c) => c.parent!.name()).sort()).toEqual(['channels', 'executions', 'hosts', 'jobs', 'monitors', 'rules', 'signing-key']);
    expect(gets.every((c) => c.aliases().includes('show'))).toBe(true);
    const help = await api.cli(['executions', '--help']);
    expect(help.stdout).toMatch(/\n {2}get\|show \[options\] <id> /);
  }, LONG_TEST_MS);

  it('suggests the command meant: a near miss, a word other CLIs use, or else the commands there are', async () => {
    const [typo, synonym, rulesDelete, nothingLike, topLevel] = await Promise.all([
      api.cli(['executions', 'lsit']),
      api.cli(['jobs', 'rm', 'job_1']),
      api.cli(['rules', 'delete', 'rul_1']),
      api.cli(['executions', 'frobnicate', 'exe_1']),
      api.cli(['exectuions', 'list']),
    ]);
    expect(typo).toMatchObject({ code: 2, stderr: "error: unknown command 'lsit'\n(Did you mean list?)\n(add --help for usage)\n" });
    expect(synonym).toMatchObject({ code: 2, stderr: "error: unknown command 'rm'\n(Did you mean delete?)\n(add --help for usage)\n" });
    expect(rulesDelete.stderr).toContain('(Did you mean remove?)\n');
    expect(nothingLike).toMatchObject({
      code: 2,
      stderr: "error: unknown command 'frobnicate'\n(the commands of cronsvc executions are: list, get (show), replay, park, resume)\n(add --help for usage)\n",
    });
    expect(topLevel.stderr).toContain('(Did you mean executions?)');
  });
});

describe('errors with --json', () => {
  it("prints the API's error body as JSON on stderr, details included, and nothing on stdout", async () => {
    const body = { name: 'bad', kind: 'recurring', schedule: { every_n_minutes: 0 }, request: { url: 'https://example.com/' } };
    const [invalid, missing] = await Promise.all([
      api.cli(['jobs', 'create', '--name', 'bad', '--every', '0', '--url', 'https://example.com/', '--json']),
      api.cli(['--json', 'executions', 'get', 'exe_missing']),
    ]);
    expect(invalid).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(invalid.stderr)).toEqual(await apiAnswer('POST', '/v1/jobs', body));
    expect(JSON.parse(invalid.stderr).error.details).toEqual([expect.objectContaining({ path: 'schedule.every_n_minutes' })]);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(missing.stderr)).toEqual(await apiAnswer('GET', '/v1/executions/exe_missing'));
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('prints usage and network errors in the same envelope, with their exit codes', async () => {
    const [unknown, badNumber, noUrl, unreachable] = await Promise.all([
      api.cli(['executions', 'frobnicate', '--json']),
      api.cli(['jobs', 'list', '--limit', 'ten', '--json']),
      api.cli(['jobs', 'list', '--json'], { env: { CRONSVC_URL: undefined } }),
      api.cli(['jobs', 'list', '--json'], { env: { CRONSVC_URL: 'http://127.0.0.1:9' } }),
    ]);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr)).toEqual({
      error: { code: 'usage_error', message: "unknown command 'frobnicate'\n(the commands of cronsvc executions are: list, get (show), replay, park, resume)" },
    });
    expect(badNumber.code).toBe(2);
    expect(JSON.parse(badNumber.stderr)).toEqual({ error: { code: 'usage_error', message: expect.stringContaining('not a whole number') } });
    expect(noUrl.code).toBe(2);
    expect(JSON.parse(noUrl.stderr)).toEqual({ error: { code: 'usage_error', message: expect.stringContaining('no API URL') } });
    expect(unreachable.code).toBe(1);
    expect(JSON.parse(unreachable.stderr)).toEqual({ error: { code: 'network_error', message: expect.stringMatching(/^cannot reach http:\/\/127\.0\.0\.1:9\/v1\/jobs: /) } });
  });

  it('says where a token goes when there is none, without asking the API, with and without --json', async () => {
    // No token, and an address nothing listens on: the answer shows the API was not asked.
    const env = { CRONSVC_TOKEN: undefined, CRONSVC_URL: 'http://127.0.0.1:9' };
    const [text, json] = await Promise.all([api.cli(['jobs', 'list'], { env }), api.cli(['jobs', 'list', '--json'], { env })]);
    expect(text).toMatchObject({ code: 1, stderr: 'error: no API token: set CRONSVC_TOKEN, or run `cronsvc login` (or put --token before the command)\n' });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'unauthorized', message: expect.stringMatching(/CRONSVC_TOKEN.*`cronsvc login`/) } });
  });
});
