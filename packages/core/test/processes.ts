import { spawn } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every descendant of `pid`, read from /proc. */
export async function descendantPids(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(Number(entry), ppid);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parents) if (parent === p) out.push(child), walk(child);
  };
  walk(pid);
  return out;
}

/** Those of `pids` holding a TCP connection to `port` on this host (a request in flight to a local server), read from /proc. */
export async function connectedTo(pids: number[], port: number): Promise<number[]> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // rem_address is ADDRESS:PORT in hex; state 01 is ESTABLISHED.
      if (fields.length > 9 && fields[2].endsWith(`:${hexPort}`) && fields[3] === '01') inodes.add(fields[9]);
    }
  }
  const holding: number[] = [];
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
    if (links.some((link) => inodes.has(link.match(/^socket:\[(\d+)\]$/)?.[1] ?? ''))) holding.push(pid);
  }
  return holding;
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, `input` written to its stdin (then closed), and answers what it printed. */
export function runCommand(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export interface GroupProcess {
  pid: number;
  /** The command line, arguments joined by spaces. */
  command: string;
  /** NODE_OPTIONS in the process's environment ('' when unset). */
  nodeOptions: string;
}

/** Every process of a process group, with its command line and NODE_OPTIONS, read from /proc. */
export async function groupProcesses(pgid: number): Promise<GroupProcess[]> {
  const out: GroupProcess[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      const command = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).split('\0').filter(Boolean).join(' ');
      const environ = (await readFile(`/proc/${entry}/environ`, 'utf8')).split('\0');
      const nodeOptions = environ.find((v) => v.startsWith('NODE_OPTIONS='))?.slice('NODE_OPTIONS='.length) ?? '';
      out.push({ pid: Number(entry), command, nodeOptions });
    } catch {
      // The process ended while being read.
    }
  }
  return out;
}
