import { readdir, readFile } from 'node:fs/promises';

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
