// Every process the bench starts goes through here: each in its own process group, so stopping
// it also stops anything it started, and each is remembered so an interrupted run stops it too.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCpuTicks, parseStatusBytes, parseVmRssBytes } from '../lib/proc.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const TAIL_BYTES = 16 * 1024;

export interface Managed {
  name: string;
  pid: number;
  child: ChildProcess;
  /** The last output lines, for error reports. */
  tail(): string;
  /** Lines of output seen so far (with LOG_LEVEL=warn, these are warnings and errors). */
  lines(): number;
  exited: Promise<number | null>;
  alive(): boolean;
  /** SIGTERM to the group, SIGKILL after graceMs. */
  stop(graceMs?: number): Promise<void>;
  /** Resolves with the first output line matching `pattern`. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
}

const running = new Set<Managed>();

/** Starts `node --import tsx <script>` from the repository root. */
export function spawnTsx(name: string, script: string, env: Record<string, string>, args: string[] = []): Managed {
  return spawnManaged(name, process.execPath, ['--import', 'tsx', path.join(repoRoot, script), ...args], env);
}

export function spawnManaged(name: string, command: string, args: string[], env: Record<string, string>, cwd = repoRoot): Managed {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  if (!child.pid) throw new Error(`could not start ${name}`);
  const pid = child.pid;
  let tail = '';
  let lineCount = 0;
  let pending = '';
  const watchers: { pattern: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-TAIL_BYTES);
    pending += text;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts) {
      lineCount++;
      for (const w of [...watchers]) {
        const m = w.pattern.exec(line);
        if (m) {
          watchers.splice(watchers.indexOf(w), 1);
          w.resolve(m);
        }
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let done = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      done = true;
      running.delete(managed);
      resolve(code);
    }),
  );
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  const managed: Managed = {
    name,
    pid,
    child,
    tail: () => tail,
    lines: () => lineCount,
    exited,
    alive: () => !done,
    async stop(graceMs = 10_000) {
      if (done) return;
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      // Anything the process left behind in its group.
      signalGroup('SIGKILL');
    },
    waitForLine(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} printed no line matching ${pattern} within ${timeoutMs} ms\n${tail}`)), timeoutMs);
        watchers.push({
          pattern,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`${name} exited with ${code} before printing ${pattern}\n${tail}`));
        });
      });
    },
  };
  running.add(managed);
  return managed;
}

/** Stops every process still running, newest first. */
export async function stopAll(): Promise<void> {
  const all = [...running].reverse();
  await Promise.all(all.map((m) => m.stop(5_000)));
}

/** Last resort on exit: no await is possible here, so SIGKILL every group still known. */
export function killAllNow(): void {
  for (const m of running) {
    try {
      process.kill(-m.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

export interface GroupProcess {
  pid: number;
  /** VmRSS: every page resident, the node binary's shared ones included. */
  rssBytes: number;
  /** RssAnon: what the process allocated itself. */
  anonBytes: number;
  /** RssFile: pages of mapped files, shared with other processes of the same binary. */
  fileBytes: number;
  command: string;
}

/** Every process whose process group is `pgid`, with its resident memory, from /proc. */
export function processGroup(pgid: number): GroupProcess[] {
  const out: GroupProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which is in parentheses): state, ppid, pgrp, ...
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== pgid) continue;
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const [rssBytes, anonBytes, fileBytes] = ['VmRSS', 'RssAnon', 'RssFile'].map((field) => parseStatusBytes(status, field) ?? 0);
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      out.push({ pid: Number(entry), rssBytes, anonBytes, fileBytes, command });
    } catch {
      // The process ended while being read.
    }
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/** Resident set size of a process, in bytes; null once it has exited. */
export function rssBytes(pid: number): number | null {
  try {
    return parseVmRssBytes(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return null;
  }
}

/** CPU time used so far by a process (user + system), in clock ticks; null once it has exited. */
export function cpuTicks(pid: number): number | null {
  try {
    return parseCpuTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ), from getconf; 100 if that fails. */
export const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return value > 0 ? value : 100;
  } catch {
    return 100;
  }
})();
