import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import type { ListEnvelope } from '@cronsvc/contracts';
import { repoRoot } from '@cronsvc/core/testing';
import { createProgram } from '../src/program.js';
import { CLI, runCli, runCliOnTty, useCliApi, type CliResult } from './cli-harness.js';

const api = useCliApi();
const ANSI = /\x1b\[\d+m/;
const GREEN_ACTIVE = '\x1b[32mactive\x1b[0m';

let configHome: string;
beforeAll(async () => {
  configHome = await mkdtemp(path.join(tmpdir(), 'cronsvc-login-'));
});
afterAll(() => rm(configHome, { recursive: true, force: true }));

/** The CLI with nothing but a config home: no CRONSVC_URL or CRONSVC_TOKEN. */
const bare = (args: string[], env: Record<string, string | undefined> = {}, input?: string) => runCli(args, { input, env: { XDG_CONFIG_HOME: configHome, ...env } });

describe('cronsvc login and settings', () => {
  it('checks the URL and token read from stdin, then writes them to a 0600 file under XDG_CONFIG_HOME', async () => {
    const refused = await bare(['login'], {}, `${api.url}\nwrong-token\n`);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: unauthorized: /) });
    await expect(stat(path.join(configHome, 'cronsvc', 'config.json'))).rejects.toThrow();

    const login = await bare(['login'], {}, `${api.url}\n${api.token}\n`);
    const file = path.join(configHome, 'cronsvc', 'config.json');
    expect(login).toMatchObject({ code: 0, stdout: `Logged in to ${api.url}; saved in ${file}\n` });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ url: api.url, token: api.token });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);

    const fromFile = await bare(['jobs', 'list', '--json']);
    expect(fromFile.code).toBe(0);
    expect((JSON.parse(fromFile.stdout) as ListEnvelope<unknown>).total).toBe(0);
  });

  it('lets --url/--token override CRONSVC_URL/CRONSVC_TOKEN, which override the config file', async () => {
    const [envWins, flagWins, urlFlagWins, loginFlags] = await Promise.all([
      bare(['jobs', 'list'], { CRONSVC_TOKEN: 'wrong-token' }),
      bare(['--token', api.token, 'jobs', 'list', '--json'], { CRONSVC_TOKEN: 'wrong-token' }),
      bare(['--url', api.url, 'jobs', 'list', '--json'], { CRONSVC_URL: 'http://127.0.0.1:9' }),
      runCli(['login', '--url', api.url, '--token', 'wrong-token'], { env: { XDG_CONFIG_HOME: configHome } }),
    ]);
    expect(envWins).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: unauthorized: /) });
    expect(flagWins.code).toBe(0);
    expect(urlFlagWins.code).toBe(0);
    expect(loginFlags).toMatchObject({ code: 1, stderr: expect.stringMatching(/\nerror: unauthorized: /) });
  });
});

describe('cronsvc and the token on the wire', () => {
  const TOKEN_WARNING = 'warning: --token leaves the API token in your shell history and the process list; prefer CRONSVC_TOKEN or `cronsvc login`\n';

  it('warns on stderr when the token is given with --token, and not when it comes from CRONSVC_TOKEN', async () => {
    const [flag, loginFlag, fromEnv] = await Promise.all([
      bare(['--url', api.url, '--token', api.token, 'jobs', 'list', '--json']),
      bare(['login', '--url', api.url, '--token', api.token]),
      bare(['--url', api.url, 'jobs', 'list', '--json'], { CRONSVC_TOKEN: api.token }),
    ]);
    expect(flag).toMatchObject({ code: 0, stderr: TOKEN_WARNING });
    expect(JSON.parse(flag.stdout).total).toBeGreaterThanOrEqual(0);
    expect(loginFlag).toMatchObject({ code: 0, stderr: TOKEN_WARNING });
    expect(fromEnv).toMatchObject({ code: 0, stderr: '' });
  });

  it('refuses plain http:// to another machine unless --insecure, and allows it to this one', async () => {
    const refusal = expect.stringMatching(/^error: refusing plain http:\/\/ to cron\.invalid:8080: .*https:\/\/.*--insecure/);
    const [flag, env, login, ping] = await Promise.all([
      bare(['--url', 'http://cron.invalid:8080', 'jobs', 'list'], { CRONSVC_TOKEN: api.token }),
      bare(['jobs', 'list'], { CRONSVC_URL: 'http://cron.invalid:8080', CRONSVC_TOKEN: api.token }),
      bare(['login', '--url', 'http://cron.invalid:8080'], {}, `${api.token}\n`),
      bare(['ping', 'http://cron.invalid:8080/v1/ping/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG']),
    ]);
    for (const refused of [flag, env, login, ping]) expect(refused).toMatchObject({ code: 2, stderr: refusal });

    // With --insecure the request is made (and fails here only because the host does not exist).
    const [insecure, insecurePing, https, loopbackName] = await Promise.all([
      bare(['--insecure', '--url', 'http://cron.invalid:8080', 'jobs', 'list'], { CRONSVC_TOKEN: api.token }),
      bare(['--insecure', 'ping', 'http://cron.invalid:8080/v1/ping/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG']),
      bare(['--url', 'https://cron.invalid:8443', 'jobs', 'list'], { CRONSVC_TOKEN: api.token }),
      bare(['--url', api.url.replace('127.0.0.1', 'localhost'), 'jobs', 'list', '--json'], { CRONSVC_TOKEN: api.token }),
    ]);
    for (const sent of [insecure, insecurePing, https]) expect(sent).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: cannot reach http/) });
    expect(loopbackName.code).toBe(0);
  });
});

describe('cronsvc output', () => {
  it('colours statuses on a terminal, and not when piped or with NO_COLOR', async () => {
    await api.json(['jobs', 'create', '--name', 'coloured', '--every', '5', '--url', 'https://example.com/']);
    const [tty, noColor, piped] = await Promise.all([
      runCliOnTty(['jobs', 'list'], { CRONSVC_URL: api.url, CRONSVC_TOKEN: api.token }),
      runCliOnTty(['jobs', 'list'], { CRONSVC_URL: api.url, CRONSVC_TOKEN: api.token, NO_COLOR: '1' }),
      api.cli(['jobs', 'list']),
    ]);
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain(GREEN_ACTIVE);
    expect(noColor.stdout).toMatch(/coloured\s+recurring\s+every 5m\s+active/);
    expect(noColor.stdout).not.toMatch(ANSI);
    expect(piped.stdout).toMatch(/coloured\s+recurring\s+every 5m\s+active/);
    expect(piped.stdout).not.toMatch(ANSI);
  });

  it('ends every command\'s --help with an example', () => {
    const leaves = (command: Command): Command[] => (command.commands.length ? command.commands.flatMap(leaves) : [command]);
    const program = createProgram();
    const all = [program, ...program.commands, ...program.commands.flatMap(leaves)];
    const missing = all.filter((command) => {
      let help = '';
      command.configureOutput({ writeOut: (text) => (help += text) });
      command.outputHelp();
      return !/\nExamples?:\n {2}\$ /.test(help);
    });
    expect(all.length).toBeGreaterThan(50);
    expect(missing.map((c) => c.name())).toEqual([]);
  });

  it('prints bash and zsh completion scripts that complete commands and options', async () => {
    const [bash, zsh, fish] = await Promise.all([bare(['completion', 'bash']), bare(['completion', 'zsh']), bare(['completion', 'fish'])]);
    expect(zsh.stdout).toContain('bashcompinit');
    expect(fish).toMatchObject({ code: 2, stderr: 'error: completion supports bash and zsh\n' });
    const complete = (words: string) =>
      new Promise<string>((resolve) => {
        const script = `${bash.stdout}\nCOMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _cronsvc; echo "\${COMPREPLY[*]}"`;
        const child = spawn('bash', ['-c', script]);
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', () => resolve(out.trim()));
      });
    expect(await complete('cronsvc j')).toBe('jobs');
    expect((await complete('cronsvc jobs ""')).split(' ')).toEqual(expect.arrayContaining(['list', 'get', 'create', 'update', 'delete', 'pause', 'resume', 'run', 'import']));
    expect((await complete('cronsvc executions list --st')).split(' ')).toEqual(['--status']);
  });

  it('never loads the server: Prisma, BullMQ, pg, Redis, express and the server packages stay unimported', async () => {
    const run = (args: string[]) =>
      new Promise<CliResult>((resolve) => {
        const child = spawn(process.execPath, ['--import', path.join(repoRoot, 'apps/cli/test/forbid-server-modules.mjs'), ...args], {
          cwd: repoRoot,
          env: { ...process.env, NODE_OPTIONS: '', CRONSVC_URL: api.url, CRONSVC_TOKEN: api.token, XDG_CONFIG_HOME: configHome },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    // The guard works: the server's entry point cannot be imported under it.
    const control = await run(['--import', 'tsx', '--input-type=module', '-e', "await import('@cronsvc/core')"]);
    expect(control.code).not.toBe(0);
    expect(control.stderr).toContain('the CLI imported a server module: @cronsvc/core');
    // Every command module is imported by the program, so one command run covers them all.
    const [help, list] = await Promise.all([run([CLI, '--help']), run([CLI, 'jobs', 'list', '--json'])]);
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect([list.code, list.stderr]).toEqual([0, '']);
  });
});
