import type { Command } from 'commander';
import { createClient, type CronsvcClient } from '@cronsvc/client';
import { colorEnabled, painter, type Paint } from './output/color.js';
import { MissingToken } from './errors.js';
import { resolveSettings, type GlobalFlags } from './settings.js';
import { insecureAllowed, requireSecureUrl } from './transport.js';

export interface Output {
  json: boolean;
  paint: Paint;
  /** Prints the API's answer: as JSON with --json, else as `render` draws it. */
  result<T>(body: T, render: (body: T) => string): void;
  line(text: string): void;
  warn(text: string): void;
}

export interface Context {
  client: CronsvcClient;
  out: Output;
  url: string;
}

export function createOutput(json: boolean): Output {
  const paint = painter(colorEnabled());
  return {
    json,
    paint,
    result(body, render) {
      if (json) {
        if (body !== undefined) process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        return;
      }
      const text = render(body);
      if (text) process.stdout.write(`${text}\n`);
    },
    line: (text) => process.stdout.write(`${text}\n`),
    warn: (text) => process.stderr.write(`${text}\n`),
  };
}

type Flags = GlobalFlags & { json?: boolean };

/**
 * The client and output of one command, from the global flags, the environment and the config
 * file. --url and --token are read from the program itself: `jobs create --url` is the target's.
 * Without a token anywhere, a command that needs one stops before asking the API (which could
 * only answer 401) and says where a token goes.
 */
export async function contextOf(command: Command, options: { tokenNeeded?: boolean } = {}): Promise<Context> {
  let root = command;
  while (root.parent) root = root.parent;
  const global = root.opts<Flags>();
  const settings = await resolveSettings({ url: global.url, token: global.token });
  requireSecureUrl(settings.url, insecureAllowed(command));
  if (!settings.token && options.tokenNeeded !== false) throw new MissingToken();
  return {
    client: createClient({ baseUrl: settings.url, token: settings.token, userAgent: 'cronsvc-cli' }),
    out: createOutput(Boolean(global.json || command.opts<Flags>().json)),
    url: settings.url,
  };
}
