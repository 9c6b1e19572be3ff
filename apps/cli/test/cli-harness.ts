import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '@cronsvc/api';
import { createTestContext, repoRoot, runCommand, startTargetServer, type TargetServer, type TestContext } from '@cronsvc/core/testing';

export const CLI = path.join(repoRoot, 'apps', 'cli', 'bin', 'cronsvc.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Written to stdin, which is then closed; without it stdin is empty. */
  input?: string;
  /** Added to (or, with undefined, removed from) the child's environment. */
  env?: Record<string, string | undefined>;
}

/** The environment of the test process without anything that would change how the CLI behaves. */
function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['CRONSVC_URL', 'CRONSVC_TOKEN', 'NO_COLOR', 'FORCE_COLOR', 'NODE_OPTIONS']) delete env[key];
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Runs the real binary as a child process (asynchronously: the API it talks to is in this process). */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return runCommand(process.execPath, [CLI, ...args], { cwd: repoRoot, env: cleanEnv(options.env ?? {}), input: options.input });
}

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** Runs the binary on a pseudo-terminal (`script`), so stdout is a TTY; answers what the terminal showed. */
export function runCliOnTty(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const command = [process.execPath, CLI, ...args].map(shellQuote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: repoRoot, env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
    child.stdin.end();
  });
}

export interface CliApi {
  ctx: TestContext;
  /** The API's base URL. */
  url: string;
  token: string;
  workspaceId: string;
  /** A target server for jobs and webhook channels. */
  target: TargetServer;
  /** An XDG_CONFIG_HOME of its own, so no real config file is read. */
  configHome: string;
  /** The CLI with CRONSVC_URL and CRONSVC_TOKEN set to this API and workspace. */
  cli(args: string[], options?: RunOptions): Promise<CliResult>;
  /** `--json` added; fails unless it exits 0; the parsed stdout. */
  json<T = Record<string, unknown>>(args: string[], options?: RunOptions): Promise<T>;
}

/**
 * Registers hooks that serve the real API (in this process, on an ephemeral port) over a
 * database and Redis prefix of the test file's own, with one workspace and its API token.
 * `start` runs more (an executor, say) once the API is up, and its stopper runs first at the end.
 */
export function useCliApi(options: { env?: Record<string, string>; start?: (api: CliApi) => Promise<() => Promise<void>> } = {}): CliApi {
  const holder = {} as CliApi;
  let server: Server;
  let stopExtras = async () => {};
  beforeAll(async () => {
    const overrides = options.env ?? {};
    holder.ctx = await createTestContext(overrides);
    const workspace = await holder.ctx.workspace('cli');
    holder.workspaceId = workspace.id;
    holder.token = workspace.token;
    holder.target = await startTargetServer();
    holder.configHome = await mkdtemp(path.join(tmpdir(), 'cronsvc-cli-'));
    server = await new Promise<Server>((resolve) => {
      const s = createApp(holder.ctx.runtime).listen(0, '127.0.0.1', () => resolve(s));
    });
    holder.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    holder.cli = (args, options = {}) =>
      runCli(args, { ...options, env: { CRONSVC_URL: holder.url, CRONSVC_TOKEN: holder.token, XDG_CONFIG_HOME: holder.configHome, ...options.env } });
    holder.json = async (args, options) => {
      const result = await holder.cli([...args, '--json'], options);
      if (result.code !== 0) throw new Error(`cronsvc ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    };
    if (options.start) stopExtras = await options.start(holder);
  });
  afterAll(async () => {
    await stopExtras();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await holder.target.close();
    await rm(holder.configHome, { recursive: true, force: true });
    await holder.ctx.close();
  });
  return holder;
}
