import type { Command } from 'commander';
import { MONITOR_STATES, type MonitorInput, type MonitorPatch, type MonitorState } from '@cronsvc/contracts';
import { createClient } from '@cronsvc/client';
import { contextOf, createOutput } from '../context.js';
import { insecureAllowed, requireSecureUrl } from '../transport.js';
import { UsageError } from '../errors.js';
import { fetchPages, int, pageNote, withPaging, type PageFlags } from '../options.js';
import { monitorDetails, monitorPingsTable, monitorsTable } from '../output/notifications-view.js';
import { done, example, withContext } from './shared.js';

interface MonitorFlags {
  name?: string;
  interval?: number;
  cron?: string;
  grace?: number;
  maxDuration?: number;
}

function monitorBody(flags: MonitorFlags): MonitorPatch {
  const body: MonitorPatch = {};
  if (flags.interval !== undefined && flags.cron !== undefined) throw new UsageError('give --interval or --cron, not both');
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.interval !== undefined) body.expected_interval_sec = flags.interval;
  if (flags.cron !== undefined) body.schedule = { cron: flags.cron };
  if (flags.grace !== undefined) body.grace_sec = flags.grace;
  if (flags.maxDuration !== undefined) body.max_duration_sec = flags.maxDuration;
  return body;
}

const monitorFlags = (command: Command) =>
  command
    .option('--name <name>', 'monitor name')
    .option('--interval <seconds>', 'a ping is expected at least this often (1 to 31536000)', int)
    .option('--cron <expr>', 'a ping is expected at each fire of this 5-field cron expression (UTC)')
    .option('--grace <seconds>', 'slack after the expected time before it is down (default 0)', int)
    .option('--max-duration <seconds>', 'down when a started run has not succeeded within this (1 to 86400)', int);

export function registerMonitors(program: Command): void {
  const monitors = program.command('monitors').description('heartbeat monitors: alert when pings stop');
  example(monitors, 'cronsvc monitors create --name "nightly backup" --interval 86400 --grace 900');

  example(
    monitorFlags(monitors.command('create').description('create a monitor; its ping URL is in the answer')).action(
      withContext(async ({ client, out }, flags: MonitorFlags) => {
        const body = monitorBody(flags);
        if (!body.name || (body.expected_interval_sec === undefined && body.schedule === undefined)) throw new UsageError('monitors create needs --name and --interval or --cron');
        out.result(await client.monitors.create(body as MonitorInput), (m) => monitorDetails(out.paint, m));
      }),
    ),
    'cronsvc monitors create --name "nightly backup" --interval 86400 --grace 900',
    'cronsvc monitors create --name "db dump" --cron "0 3 * * *" --grace 1800 --max-duration 3600',
  );
  example(
    withPaging(monitors.command('list').description('list monitors, newest first'))
      .option('--state <state>', `only this state (${MONITOR_STATES.join(', ')})`)
      .action(
        withContext(async ({ client, out }, flags: PageFlags & { state?: MonitorState }) => {
          const page = await fetchPages((q) => client.monitors.list({ ...q, state: flags.state }), flags);
          out.result(page, (p) => monitorsTable(out.paint, p) + pageNote(p));
        }),
      ),
    'cronsvc monitors list --state down',
  );
  example(
    monitors.command('get <id>').description('show one monitor').action(withContext(async ({ client, out }, id: string) => out.result(await client.monitors.get(id), (m) => monitorDetails(out.paint, m)))),
    'cronsvc monitors get mon_123',
  );
  example(
    monitorFlags(monitors.command('update <id>').description('change name, interval or cron schedule, grace or max duration')).action(
      withContext(async ({ client, out }, id: string, flags: MonitorFlags) => {
        const body = monitorBody(flags);
        if (!Object.keys(body).length) throw new UsageError('nothing to change: give --name, --interval, --cron, --grace or --max-duration');
        out.result(await client.monitors.update(id, body), (m) => monitorDetails(out.paint, m));
      }),
    ),
    'cronsvc monitors update mon_123 --grace 1800',
  );
  example(
    withPaging(monitors.command('pings <id>').description('the last pings of a monitor, newest first (kind, exit status, duration, body)')).action(
      withContext(async ({ client, out }, id: string, flags: PageFlags) => {
        const page = await fetchPages((q) => client.monitors.pings(id, q), flags);
        out.result(page, (p) => monitorPingsTable(out.paint, p) + pageNote(p));
      }),
    ),
    'cronsvc monitors pings mon_123 --limit 20',
  );
  example(
    monitors.command('delete <id>').description('delete a monitor with its rules').action(withContext(async ({ client, out }, id: string) => out.result(await client.monitors.delete(id), done(`deleted ${id}`)))),
    'cronsvc monitors delete mon_123',
  );
  example(
    monitors.command('pause <id>').description('stop a monitor from going down').action(withContext(async ({ client, out }, id: string) => out.result(await client.monitors.pause(id), (m) => `${m.id} ${out.paint(m.state, 'yellow')}`))),
    'cronsvc monitors pause mon_123',
  );
  example(
    monitors.command('resume <id>').description('watch a paused monitor again').action(withContext(async ({ client, out }, id: string) => out.result(await client.monitors.resume(id), (m) => `${m.id} ${m.state}`))),
    'cronsvc monitors resume mon_123',
  );
}

/** `ping <token>` or `ping <ping_url>`: a URL carries its own host, so it needs no login. */
export function registerPing(program: Command): void {
  example(
    program
      .command('ping <token-or-url>')
      .description('ping a monitor (no API token needed: the ping token is the credential)')
      .action(async (target: string, _flags: unknown, command: Command) => {
        const url = /^https?:\/\//.test(target) ? new URL(target) : undefined;
        if (!url) {
          const { client, out } = await contextOf(command, { tokenNeeded: false });
          return out.result(await client.monitors.ping(target), () => 'ok');
        }
        requireSecureUrl(target, insecureAllowed(command));
        const out = createOutput(Boolean(command.optsWithGlobals<{ json?: boolean }>().json));
        const client = createClient({ baseUrl: url.origin + url.pathname.replace(/\/v1\/ping\/[^/]*$/, ''), userAgent: 'cronsvc-cli' });
        out.result(await client.monitors.ping(url.pathname.split('/').pop()!), () => 'ok');
      }),
    'cronsvc ping 3q2-Abc...',
    '/usr/local/bin/backup.sh && cronsvc ping "$PING_URL"',
  );
}
