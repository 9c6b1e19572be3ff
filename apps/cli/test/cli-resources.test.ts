import type { Channel, Delivery, HostLimit, ListEnvelope, Monitor, Rule, Secret, SigningKey } from '@cronsvc/contracts';
import { aDelivery } from '@cronsvc/core/testing';
import { useCliApi } from './cli-harness.js';

const api = useCliApi({ env: { PUBLIC_BASE_URL: 'https://cron.example.com' } });
// For tests that run the CLI a dozen times one after another (each run starts a Node process).
const LONG_TEST_MS = 120_000;

describe('cronsvc secrets and signing-key', () => {
  it('creates a secret from stdin and from --value (with a warning), lists, updates and deletes it', async () => {
    const piped = await api.cli(['secrets', 'create', 'HOOK_PATH', '--json'], { input: 'from-secret\n' });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    const secret = JSON.parse(piped.stdout) as Secret;
    expect(secret).toEqual({ id: expect.stringMatching(/^sec_/), name: 'HOOK_PATH', created_at: expect.any(String), updated_at: expect.any(String) });
    // The value is exactly what was piped, without the newline: a channel posting to it reaches the path.
    const channel = await api.json<Channel>(['channels', 'create', '--name', 'via secret', '--type', 'webhook', '--config', JSON.stringify({ url: `${api.target.url}/{{secret.HOOK_PATH}}` })]);
    expect((await api.cli(['channels', 'test', channel.id])).code).toBe(0);
    expect(api.target.received.map((r) => r.url)).toContain('/from-secret');
    expect((await api.cli(['channels', 'delete', channel.id])).code).toBe(0);

    const flagged = await api.cli(['secrets', 'create', 'OTHER', '--value', 'x']);
    expect(flagged.code).toBe(0);
    expect(flagged.stderr).toMatch(/^warning: --value leaves the secret in your shell history/);

    const [list, table, conflict, empty] = await Promise.all([
      api.json<ListEnvelope<Secret>>(['secrets', 'list']),
      api.cli(['secrets', 'list']),
      api.cli(['secrets', 'create', 'HOOK_PATH'], { input: 'again' }),
      api.cli(['secrets', 'create', 'EMPTY'], { input: '' }),
    ]);
    expect(list.data.map((s) => s.name)).toEqual(['HOOK_PATH', 'OTHER']);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+UPDATED\n/);
    expect(conflict).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: conflict: /) });
    expect(empty).toMatchObject({ code: 2, stderr: 'error: the secret value is empty\n' });

    const updated = await api.json<Secret>(['secrets', 'update', secret.id], { input: 'new-value' });
    expect(updated.id).toBe(secret.id);
    expect(await api.cli(['secrets', 'delete', secret.id])).toMatchObject({ code: 0, stdout: `deleted ${secret.id}\n` });
    expect(await api.cli(['secrets', 'delete', secret.id])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
  }, LONG_TEST_MS);

  it('shows and rotates the signing key', async () => {
    const key = await api.json<SigningKey>(['signing-key', 'get']);
    expect(key.signing_key).toMatch(/^whsec_/);
    const rotated = await api.json<SigningKey>(['signing-key', 'rotate']);
    expect(rotated.signing_key).not.toBe(key.signing_key);
    const shown = (await api.cli(['signing-key', 'get'])).stdout;
    expect(shown).toMatch(/^Signing key {2}whsec_\S+\nCreated {6}\S+ \((\d+s ago|just now)\)\n$/);
    expect(shown).toContain(rotated.signing_key);
  });
});

describe('cronsvc channels, rules and deliveries', () => {
  it('creates, lists, shows, updates, tests and deletes a channel', async () => {
    api.target.handle((req, res) => {
      res.statusCode = req.url.startsWith('/broken') ? 404 : 200;
      res.end();
    });
    const channel = await api.json<Channel>(['channels', 'create', '--name', 'hook', '--type', 'webhook', '--config', JSON.stringify({ url: `${api.target.url}/hook` })]);
    expect(channel).toMatchObject({ name: 'hook', type: 'webhook', configured_secrets: ['url'] });
    const [list, shown, table] = await Promise.all([
      api.json<ListEnvelope<Channel>>(['channels', 'list']),
      api.json<Channel>(['channels', 'get', channel.id]),
      api.cli(['channels', 'list']),
    ]);
    expect(list.data.map((c) => c.id)).toEqual([channel.id]);
    expect(shown).toEqual(channel);
    expect(table.stdout).toMatch(new RegExp(`\\n${channel.id}\\s+hook\\s+webhook\\s+url\\s`));

    const tested = await api.cli(['channels', 'test', channel.id]);
    expect(tested).toMatchObject({ code: 0, stdout: `ok: test sent through ${channel.id} (webhook)\n` });
    expect(api.target.received.some((r) => r.url === '/hook')).toBe(true);

    const renamed = await api.json<Channel>(['channels', 'update', channel.id, '--name', 'pager', '--config', JSON.stringify({ url: `${api.target.url}/broken` })]);
    expect(renamed.name).toBe('pager');
    const failing = await api.cli(['channels', 'test', channel.id, '--json']);
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout)).toMatchObject({ ok: false, error: { code: 'notification_test_failed' }, http_status: 404, permanent: true });
    expect(JSON.parse(failing.stderr)).toEqual({ error: { code: 'notification_test_failed', message: expect.any(String) } });
    const failingText = await api.cli(['channels', 'test', channel.id]);
    expect(failingText).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: notification_test_failed: .*\(receiver status 404, permanent\)/) });

    const invalid = await api.cli(['channels', 'create', '--name', 'x', '--type', 'email', '--config', '{"email": "not an address"}']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^error: validation_failed: config\.email: .* \(HTTP 400\)\n$/);
    expect(await api.cli(['channels', 'create', '--name', 'x', '--type', 'email', '--config', '{nope'])).toMatchObject({ code: 2, stderr: 'error: --config must be JSON\n' });

    expect(await api.cli(['channels', 'delete', channel.id])).toMatchObject({ code: 0 });
    expect(await api.cli(['channels', 'get', channel.id])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
  });

  it('adds, lists and removes rules on jobs and monitors', async () => {
    const [channel, channel2, job, monitor] = await Promise.all([
      api.json<Channel>(['channels', 'create', '--name', 'mail', '--type', 'email', '--config', '{"email": "ops@example.com"}']),
      api.json<Channel>(['channels', 'create', '--name', 'pager', '--type', 'email', '--config', '{"email": "pager@example.com"}']),
      api.json<{ id: string }>(['jobs', 'create', '--name', 'ruled', '--cron', '0 0 1 1 *', '--url', 'https://example.com/']),
      api.json<Monitor>(['monitors', 'create', '--name', 'ruled monitor', '--interval', '60']),
    ]);
    const [jobRule, monitorRule] = await Promise.all([
      api.json<Rule>(['rules', 'add', '--job', job.id, '--channel', channel.id, '--event', 'on_failure']),
      api.json<Rule>(['rules', 'add', '--monitor', monitor.id, '--channel', channel.id, '--event', 'on_down']),
    ]);
    expect(jobRule).toMatchObject({ job_id: job.id, monitor_id: null, event: 'on_failure', channel_id: channel.id });
    expect(monitorRule).toMatchObject({ monitor_id: monitor.id, event: 'on_down' });
    const [jobRules, monitorRules, table, wrongEvent, noOwner] = await Promise.all([
      api.json<ListEnvelope<Rule>>(['rules', 'list', '--job', job.id]),
      api.json<ListEnvelope<Rule>>(['rules', 'list', '--monitor', monitor.id]),
      api.cli(['rules', 'list', '--job', job.id]),
      api.cli(['rules', 'add', '--job', job.id, '--channel', channel.id, '--event', 'on_down']),
      api.cli(['rules', 'list']),
    ]);
    expect(jobRules.data.map((r) => r.id)).toEqual([jobRule.id]);
    expect(monitorRules.data.map((r) => r.id)).toEqual([monitorRule.id]);
    expect(table.stdout).toMatch(new RegExp(`\\n${jobRule.id}\\s+on_failure\\s+${channel.id}\\s+${job.id}\\s`));
    expect(wrongEvent).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: validation_failed: /) });
    expect(noOwner).toMatchObject({ code: 2, stderr: 'error: give one of --job ID and --monitor ID\n' });

    const quiet = await api.json<Rule>(['rules', 'add', '--job', job.id, '--channel', channel.id, '--event', 'on_recovery']);
    expect(quiet).toMatchObject({ event: 'on_recovery', held_back: 0 });
    const snoozed = await api.json<Rule>(['rules', 'snooze', jobRule.id, '--minutes', '90']);
    expect(Date.parse(snoozed.snoozed_until as string) - Date.now()).toBeGreaterThan(89 * 60_000);
    expect((await api.cli(['rules', 'get', jobRule.id])).stdout).toContain(`snoozed until:  ${snoozed.snoozed_until}`);
    expect(await api.cli(['rules', 'unsnooze', jobRule.id])).toMatchObject({ code: 0, stdout: `${jobRule.id} is not snoozed\n` });
    expect((await api.cli(['rules', 'snooze', monitorRule.id, '--minutes', '0'])).stderr).toMatch(/^error: validation_failed: /);
    const streaky = await api.json<Rule>(['rules', 'add', '--job', job.id, '--channel', channel2.id, '--event', 'on_failure', '--after-failures', '3', '--realert-minutes', 'never']);
    expect(streaky).toMatchObject({ after_consecutive_failures: 3, realert_after_minutes: null });
    expect((await api.cli(['rules', 'list', '--job', job.id])).stdout).toContain('after 3 failures, once per streak');

    expect(await api.cli(['rules', 'remove', jobRule.id, '--job', job.id])).toMatchObject({ code: 0, stdout: `removed ${jobRule.id}\n` });
    expect(await api.cli(['rules', 'remove', jobRule.id, '--job', job.id])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
  });

  it('lists deliveries by status, retries a failed one, and refuses to retry an unknown one', async () => {
    const delivery = await aDelivery(api.ctx.runtime, api.workspaceId);
    const [failed, sent, table, unknown] = await Promise.all([
      api.json<ListEnvelope<Delivery>>(['deliveries', 'list', '--status', 'failed']),
      api.json<ListEnvelope<Delivery>>(['deliveries', 'list', '--status', 'sent']),
      api.cli(['deliveries', 'list']),
      api.cli(['deliveries', 'retry', 'dlv_unknown']),
    ]);
    expect(failed.data.map((d) => d.id)).toEqual([delivery.id]);
    expect(sent.total).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^ID\\s+KIND\\s+EVENT\\s+STATUS\\s+ATTEMPTS\\s+CODE\\s+CREATED\\s+LAST ERROR\\n${delivery.id}\\s+callback\\s+on_failure\\s+failed\\s+5\\s+500\\s+.*HTTP 500\\n$`));
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
    expect(await api.cli(['deliveries', 'retry', delivery.id])).toMatchObject({ code: 0, stdout: `${delivery.id} pending\n` });
    expect(await api.cli(['deliveries', 'retry', delivery.id])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: invalid_state: /) });
    const badStatus = await api.cli(['deliveries', 'list', '--status', 'lost']);
    expect(badStatus).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: validation_failed: /) });
    expect(await api.cli(['deliveries', 'list', '--execution', 'exe_unknown'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
  });
});

describe('cronsvc monitors and ping', () => {
  it('creates, lists, shows, updates, pauses, resumes and deletes a monitor', async () => {
    const monitor = await api.json<Monitor>(['monitors', 'create', '--name', 'nightly backup', '--interval', '86400', '--grace', '900']);
    expect(monitor).toMatchObject({ name: 'nightly backup', expected_interval_sec: 86_400, grace_sec: 900, state: 'new', ping_url: expect.stringMatching(/^https:\/\/cron\.example\.com\/v1\/ping\//) });
    const [shown, list, table] = await Promise.all([
      api.json<Monitor>(['monitors', 'get', monitor.id]),
      api.json<ListEnvelope<Monitor>>(['monitors', 'list', '--state', 'new']),
      api.cli(['monitors', 'list']),
    ]);
    expect(shown).toEqual(monitor);
    expect(list.data.map((m) => m.id)).toContain(monitor.id);
    expect(table.stdout).toMatch(new RegExp(`\\n${monitor.id}\\s+nightly backup\\s+new\\s+86400s\\s+900s\\s+-\\s+-`));
    expect((await api.json<Monitor>(['monitors', 'update', monitor.id, '--grace', '60'])).grace_sec).toBe(60);
    expect(await api.cli(['monitors', 'pause', monitor.id])).toMatchObject({ code: 0, stdout: `${monitor.id} paused\n` });
    expect(await api.cli(['monitors', 'pause', monitor.id])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: invalid_state: /) });
    expect((await api.json<Monitor>(['monitors', 'resume', monitor.id])).state).toBe('new');
    expect(await api.cli(['monitors', 'create', '--name', 'x'])).toMatchObject({ code: 2, stderr: 'error: monitors create needs --name and --interval\n' });
    expect(await api.cli(['monitors', 'delete', monitor.id])).toMatchObject({ code: 0, stdout: `deleted ${monitor.id}\n` });
    expect(await api.cli(['monitors', 'get', monitor.id])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
  }, LONG_TEST_MS);

  it('pings by token without an API token, and by ping URL without any configuration', async () => {
    const monitor = await api.json<Monitor>(['monitors', 'create', '--name', 'pinged', '--interval', '60']);
    const token = monitor.ping_url!.split('/').pop()!;
    const [byToken, byUrl, unknown] = await Promise.all([
      api.cli(['ping', token], { env: { CRONSVC_TOKEN: undefined } }),
      api.cli(['ping', `${api.url}/v1/ping/${token}`, '--json'], { env: { CRONSVC_URL: undefined, CRONSVC_TOKEN: undefined } }),
      api.cli(['ping', 'not-a-token']),
    ]);
    expect(byToken).toMatchObject({ code: 0, stdout: 'ok\n' });
    expect(JSON.parse(byUrl.stdout)).toEqual({ ok: true });
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
    const pinged = await api.json<Monitor>(['monitors', 'get', monitor.id]);
    expect([pinged.state, pinged.last_ping_at]).toEqual(['up', expect.any(String)]);
  });
});

describe('cronsvc hosts', () => {
  it("sets, lists, shows and deletes a host's limits", async () => {
    const set = await api.json<HostLimit>(['hosts', 'set', 'API.example.com', '--max-concurrency', '5', '--max-per-second', '0.5']);
    expect(set).toMatchObject({ host: 'api.example.com', max_concurrency: 5, max_per_second: 0.5, cooldown_until: null });
    const [list, table, shown, none, bad] = await Promise.all([
      api.json<ListEnvelope<HostLimit>>(['hosts', 'list']),
      api.cli(['hosts', 'list']),
      api.cli(['hosts', 'get', 'api.example.com']),
      api.cli(['hosts', 'set', 'api.example.com']),
      api.cli(['hosts', 'set', 'api.example.com', '--max-per-second', 'fast']),
    ]);
    expect(list.data.map((h) => h.host)).toEqual(['api.example.com']);
    expect(table.stdout).toMatch(/^HOST\s+MAX CONCURRENCY\s+MAX PER SECOND\s+COOL-DOWN UNTIL\napi\.example\.com\s+5\s+0\.5\s+-/);
    expect(shown.stdout).toMatch(/Max concurrency\s+5/);
    expect(none).toMatchObject({ code: 2, stderr: expect.stringMatching(/give --max-concurrency, --max-per-second or both/) });
    expect(bad.code).toBe(2);
    expect(await api.cli(['hosts', 'delete', 'api.example.com'])).toMatchObject({ code: 0, stdout: 'deleted api.example.com\n' });
    expect(await api.cli(['hosts', 'get', 'api.example.com'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_found: /) });
  }, LONG_TEST_MS);
});
