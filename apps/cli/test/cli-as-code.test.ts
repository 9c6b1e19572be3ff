import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Job, ListEnvelope, TagChange } from '@cronsvc/contracts';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { runCliOnTty, useCliApi } from './cli-harness.js';

const api = useCliApi();

// Each test runs the CLI several times one after another (each run starts a Node process).
const LONG_TEST_MS = 120_000;
const ANSI = /\x1b\[/;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cronsvc-as-code-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const create = (key: string, cron: string, ...extra: string[]) =>
  api.json<Job>(['jobs', 'create', '--name', key, '--cron', cron, '--url', 'https://billing.example.com/run', '--key', key, '--tag', 'billing', ...extra]);

describe('cronsvc export, plan and apply', () => {
  it(
    'round-trips: export -> plan (no change) -> edit -> plan (the change named) -> apply -> plan (no change)',
    async () => {
      await api.json(['secrets', 'create', 'billing_token'], { input: 'hunter2-secret-value' });
      await create('billing.invoices', '0 3 * * *', '--header', 'Authorization: Bearer {{secret.billing_token}}');
      await create('billing.reminders', '0 9 * * 1');
      const file = path.join(dir, 'billing.yaml');

      const exported = await api.cli(['export', '--tag', 'billing']);
      expect(exported.code).toBe(0);
      expect(exported.stdout).toContain('{{secret.billing_token}}');
      expect(exported.stdout).not.toContain('hunter2');
      expect(exported.stdout).not.toMatch(/\bid:|created_at|next_run_at/);
      await writeFile(file, exported.stdout);

      const unchanged = await api.cli(['plan', '-f', file, '--detailed-exitcode']);
      expect(unchanged).toMatchObject({ code: 0, stderr: '' });
      expect(unchanged.stdout).toContain('No changes: 2 jobs unchanged.');

      const doc = parseYaml(await readFile(file, 'utf8')) as { jobs: Record<string, unknown>[] };
      const invoices = doc.jobs.find((j) => j.key === 'billing.invoices')!;
      invoices.schedule = { cron: '0 4 * * *' };
      invoices.tags = ['billing', 'eu'];
      await writeFile(file, toYaml(doc));

      const changed = await api.cli(['plan', '-f', file, '--detailed-exitcode']);
      expect(changed.code).toBe(2);
      expect(changed.stdout).not.toMatch(ANSI);
      expect(changed.stdout).toContain('~ billing.invoices');
      expect(changed.stdout).toContain('schedule.cron: "0 3 * * *" -> "0 4 * * *"');
      expect(changed.stdout).toContain('tags: ["billing"] -> ["billing","eu"]');
      expect(changed.stdout).toContain('Plan: 0 to create, 1 to change, 0 to delete, 1 unchanged.');

      const applied = await api.cli(['apply', '-f', file]);
      expect(applied.code).toBe(0);
      expect(applied.stdout).toContain('Applied: 0 created, 1 changed, 0 deleted, 1 unchanged.');

      const after = await api.cli(['plan', '-f', file, '--detailed-exitcode']);
      expect(after.code).toBe(0);
      expect(after.stdout).toContain('No changes');
      const job = (await api.json<ListEnvelope<Job>>(['jobs', 'list', '--tag', 'eu'])).data;
      expect(job.map((j) => j.key)).toEqual(['billing.invoices']);
    },
    LONG_TEST_MS,
  );

  it(
    'asks before deleting: piped without --yes it refuses and changes nothing; with --yes it deletes',
    async () => {
      await create('prune.keep', '0 1 * * *', '--tag', 'prune');
      await create('prune.drop', '0 2 * * *', '--tag', 'prune');
      const file = path.join(dir, 'prune.json');
      const exported = await api.cli(['export', '--tag', 'prune', '--format', 'json']);
      const doc = JSON.parse(exported.stdout) as { jobs: { key: string }[] };
      await writeFile(file, JSON.stringify({ jobs: doc.jobs.filter((j) => j.key === 'prune.keep') }));

      const refused = await api.cli(['apply', '-f', file, '--prune-tag', 'prune']);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toContain('- prune.drop');
      expect(refused.stderr).toContain('--yes');
      expect((await api.json<ListEnvelope<Job>>(['jobs', 'list', '--tag', 'prune'])).total).toBe(2);

      const done = await api.cli(['apply', '-f', file, '--prune-tag', 'prune', '--yes']);
      expect(done.code).toBe(0);
      expect(done.stdout).toContain('1 deleted');
      expect((await api.json<ListEnvelope<Job>>(['jobs', 'list', '--tag', 'prune'])).data.map((j) => j.key)).toEqual(['prune.keep']);
    },
    LONG_TEST_MS,
  );

  it(
    'colours the plan on a terminal, and exits 1 on an invalid document even with --detailed-exitcode',
    async () => {
      await create('tty.job', '0 5 * * *', '--tag', 'tty');
      const file = path.join(dir, 'tty.yaml');
      await writeFile(file, toYaml({ jobs: [{ key: 'tty.job', name: 'tty.job', kind: 'cron', schedule: { cron: '0 6 * * *' }, request: { url: 'https://billing.example.com/run' }, tags: ['tty'] }] }));
      const tty = await runCliOnTty(['plan', '-f', file], { CRONSVC_URL: api.url, CRONSVC_TOKEN: api.token, XDG_CONFIG_HOME: api.configHome });
      expect(tty.stdout).toMatch(ANSI);
      expect(tty.stdout).toContain('tty.job');

      await writeFile(file, toYaml({ jobs: [{ key: 'tty.job', name: 'x', kind: 'cron', schedule: { cron: 'nope' }, request: { url: 'https://x.example.com/' } }] }));
      const invalid = await api.cli(['plan', '-f', file, '--detailed-exitcode']);
      expect(invalid.code).toBe(1);
      expect(invalid.stderr).toContain('jobs[0].schedule.cron');
      await writeFile(file, 'jobs: [unclosed');
      expect((await api.cli(['plan', '-f', file, '--detailed-exitcode'])).code).toBe(1);
    },
    LONG_TEST_MS,
  );
});

describe('cronsvc tags', () => {
  it(
    'lists tags, and pauses and resumes every job with one',
    async () => {
      await create('tags.a', '0 1 * * *', '--tag', 'ops');
      await create('tags.b', '0 2 * * *', '--tag', 'ops');
      expect((await api.cli(['tags', 'list'])).stdout).toMatch(/^ops\t2$/m);
      expect(await api.json<TagChange>(['tags', 'pause', 'ops'])).toEqual({ tag: 'ops', changed: 2 });
      expect((await api.json<ListEnvelope<Job>>(['jobs', 'list', '--tag', 'ops', '--state', 'paused'])).total).toBe(2);
      expect((await api.cli(['tags', 'resume', 'ops'])).stdout).toContain('resumed 2 job(s) tagged ops');
    },
    LONG_TEST_MS,
  );
});
