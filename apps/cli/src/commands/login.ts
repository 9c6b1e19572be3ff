import type { Command } from 'commander';
import { createClient } from '@cronsvc/client';
import { configPath, readConfig, writeConfig } from '../config.js';
import { createOutput } from '../context.js';
import { UsageError } from '../errors.js';
import { ask, askHidden } from '../prompt.js';
import { insecureAllowed, requireSecureUrl } from '../transport.js';
import { example } from './shared.js';

/**
 * Asks for the URL and token (or takes --url/--token), checks them with one authenticated
 * request, and only then writes the config file.
 */
export function registerLogin(program: Command): void {
  example(
    program
      .command('login')
      .description(`store the API URL and token in ${configPath().replace(process.env.HOME ?? '\0', '~')} (mode 0600)`)
      .option('--url <url>', 'the API URL, instead of asking')
      .option('--token <token>', 'the API token, instead of asking')
      .action(async (_flags: unknown, command: Command) => {
        const global = command.optsWithGlobals<{ url?: string; token?: string; json?: boolean }>();
        const out = createOutput(Boolean(global.json));
        const stored = await readConfig().catch(() => ({ url: undefined }));
        const suggested = process.env.CRONSVC_URL || stored.url;
        let url = global.url ?? (await ask(`API URL${suggested ? ` [${suggested}]` : ''}: `));
        if (!url) url = suggested ?? '';
        const token = global.token ?? (await askHidden('API token (not shown): ')).trim();
        if (!/^https?:\/\//.test(url)) throw new UsageError(`the API URL must start with http:// or https:// (got "${url}")`);
        requireSecureUrl(url, insecureAllowed(command));
        if (!token) throw new UsageError('the API token is empty');
        await createClient({ baseUrl: url, token, userAgent: 'cronsvc-cli' }).jobs.list({ limit: 1 });
        await writeConfig({ url, token });
        out.result({ url, config: configPath() }, (r) => `Logged in to ${r.url}; saved in ${r.config}`);
      }),
    'cronsvc login',
    'cronsvc login --url https://cron.example.com   # asks for the token only',
    'printf "%s\\n%s\\n" "$URL" "$TOKEN" | cronsvc login',
  );
}
