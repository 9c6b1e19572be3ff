import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

/** What `cronsvc login` stores. */
export interface StoredConfig {
  url?: string;
  token?: string;
}

/** `$XDG_CONFIG_HOME/cronsvc/config.json`, with XDG's default of ~/.config. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir(), '.config');
  return path.join(base, 'cronsvc', 'config.json');
}

export async function readConfig(file = configPath()): Promise<StoredConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as StoredConfig;
    return { url: typeof parsed.url === 'string' ? parsed.url : undefined, token: typeof parsed.token === 'string' ? parsed.token : undefined };
  } catch {
    throw new Error(`${file} is not valid JSON; run \`cronsvc login\` to write it again`);
  }
}

/** Written to a temporary file first and renamed, so a reader never sees half a file; 0600 in a 0700 directory. */
export async function writeConfig(config: StoredConfig, file = configPath()): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}
