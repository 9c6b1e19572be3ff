import { readConfig } from './config.js';
import { UsageError } from './errors.js';

export interface Settings {
  url: string;
  token?: string;
}

export interface GlobalFlags {
  url?: string;
  token?: string;
}

/** --url/--token first, then CRONSVC_URL/CRONSVC_TOKEN, then the file `cronsvc login` wrote. */
export async function resolveSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const fromEnv = { url: env.CRONSVC_URL || undefined, token: env.CRONSVC_TOKEN || undefined };
  const needsFile = !(flags.url ?? fromEnv.url) || !(flags.token ?? fromEnv.token);
  const stored = needsFile ? await readConfig() : {};
  const url = flags.url ?? fromEnv.url ?? stored.url;
  if (!url) throw new UsageError('no API URL: run `cronsvc login`, set CRONSVC_URL, or pass --url');
  return { url, token: flags.token ?? fromEnv.token ?? stored.token };
}
