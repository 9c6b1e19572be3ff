import type { Command } from 'commander';
import { CHANNEL_TYPES, type ChannelInput, type ChannelPatch, type ChannelType } from '@cronsvc/contracts';
import { UsageError } from '../errors.js';
import { fetchPages, pageNote, parseJsonFlag, readJsonInput, withPaging, type PageFlags } from '../options.js';
import { channelDetails, channelsTable } from '../output/notifications-view.js';
import { done, example, withContext } from './shared.js';

interface ChannelFlags {
  name?: string;
  type?: ChannelType;
  config?: string;
  file?: string;
}

async function channelBody(flags: ChannelFlags): Promise<Record<string, unknown>> {
  const body = flags.file === undefined ? {} : ((await readJsonInput(flags.file)) as Record<string, unknown>);
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.type !== undefined) body.type = flags.type;
  if (flags.config !== undefined) body.config = parseJsonFlag('--config', flags.config);
  return body;
}

const channelFlags = (command: Command) =>
  command
    .option('--name <name>', 'channel name')
    .option('--type <type>', `one of ${CHANNEL_TYPES.join(', ')}`)
    .option('--config <json>', 'the type\'s settings as a JSON object, e.g. \'{"url": "https://..."}\'')
    .option('--file <file>', 'the whole body as JSON; - for stdin');

export function registerChannels(program: Command): void {
  const channels = program.command('channels').description('notification channels: where notifications go');
  example(channels, 'cronsvc channels create --name ops --type email --config \'{"email": "ops@example.com"}\'');

  example(
    channelFlags(channels.command('create').description('create a channel')).action(
      withContext(async ({ client, out }, flags: ChannelFlags) => {
        const body = await channelBody(flags);
        if (!body.name || !body.type || !body.config) throw new UsageError('channels create needs --name, --type and --config (or --file)');
        out.result(await client.channels.create(body as unknown as ChannelInput), channelDetails);
      }),
    ),
    'cronsvc channels create --name pager --type webhook --config \'{"url": "https://pager.example.com/in", "signing_secret": "{{secret.ALERT_SIGNING}}"}\'',
  );

  example(
    withPaging(channels.command('list').description('list channels, oldest first')).action(
      withContext(async ({ client, out }, flags: PageFlags) => {
        const page = await fetchPages((q) => client.channels.list(q), flags);
        out.result(page, (p) => channelsTable(p) + pageNote(p));
      }),
    ),
    'cronsvc channels list',
  );
  example(
    channels.command('get <id>').description('show one channel (credentials are never shown)').action(withContext(async ({ client, out }, id: string) => out.result(await client.channels.get(id), channelDetails))),
    'cronsvc channels get chn_123',
  );
  example(
    channelFlags(channels.command('update <id>').description('change the name or config (merged one level deep)')).action(
      withContext(async ({ client, out }, id: string, flags: ChannelFlags) => {
        const body = await channelBody(flags);
        if (!Object.keys(body).length) throw new UsageError('nothing to change: give --name, --type, --config or --file');
        out.result(await client.channels.update(id, body as ChannelPatch), channelDetails);
      }),
    ),
    'cronsvc channels update chn_123 --config \'{"mention_text": null}\'',
  );
  example(
    channels.command('delete <id>').description('delete a channel and its rules').action(withContext(async ({ client, out }, id: string) => out.result(await client.channels.delete(id), done(`deleted ${id}`)))),
    'cronsvc channels delete chn_123',
  );
  example(
    channels
      .command('test <id>')
      .description('send a test notification through the channel; exits 1 when it fails')
      .action(
        withContext(async ({ client, out }, id: string) => {
          const result = await client.channels.test(id);
          out.result(result, (r) => (r.ok ? `${out.paint('ok', 'green')}: test sent through ${r.channel_id} (${r.provider})` : ''));
          if (!result.ok) {
            // The answer is on stdout; stderr says it failed, as JSON with --json like every error.
            out.warn(
              out.json
                ? JSON.stringify({ error: result.error })
                : `error: ${result.error.code}: ${result.error.message} (receiver status ${result.http_status}${result.permanent ? ', permanent' : ''})`,
            );
            process.exitCode = 1;
          }
        }),
      ),
    'cronsvc channels test chn_123',
  );
}
