// Where a process spent its CPU, from a V8 .cpuprofile: self time per package (node_modules
// package, the service's own code, Node internals, GC) and per function.

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples?: number[];
  timeDeltas?: number[];
}

export interface Share {
  name: string;
  ms: number;
  /** Percent of the busy (non-idle) time. */
  percent: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  byPackage: Share[];
  /**
   * Like byPackage, but time in Node internals, native code and WebAssembly is charged to the
   * nearest caller in a package or the service: "pg" then includes the socket writes pg made.
   */
  byCaller: Share[];
  byFunction: Share[];
}

const UNOWNED = new Set(['node', '(native)', 'other']);

/** The package a script belongs to: `pg`, `@prisma/client`, `service`, `node`, or a V8 pseudo-frame. */
export function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:') || !url.includes('/')) return 'node';
  if (/\/(apps|packages)\//.test(url)) return url.includes('/db/generated/') ? 'service (generated prisma client)' : 'service';
  return 'other';
}

function shares(totals: Map<string, number>, busyMs: number, top: number): Share[] {
  return [...totals.entries()]
    .map(([name, ms]) => ({ name, ms, percent: busyMs > 0 ? (ms / busyMs) * 100 : 0 }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top);
}

export function summarizeProfile(profile: CpuProfile, top = 12): ProfileSummary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ownerCache = new Map<number, string>();
  const ownerOf = (id: number): string => {
    const cached = ownerCache.get(id);
    if (cached !== undefined) return cached;
    const frame = nodes.get(id);
    let owner = frame ? packageOf(frame.url, frame.functionName) : '(native)';
    if (UNOWNED.has(owner)) {
      const up = parent.get(id);
      if (up !== undefined) {
        const above = ownerOf(up);
        owner = above === '(root)' ? owner : above;
      }
    }
    ownerCache.set(id, owner);
    return owner;
  };
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const byPackage = new Map<string, number>();
  const byCaller = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  for (let i = 0; i < samples.length; i++) {
    // A sample's time is the delta to the next sample.
    const us = deltas[i + 1] ?? 0;
    const frame = nodes.get(samples[i]);
    if (!frame) continue;
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const pkg = packageOf(frame.url, frame.functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us / 1000);
    const caller = ownerOf(samples[i]);
    byCaller.set(caller, (byCaller.get(caller) ?? 0) + us / 1000);
    const where = frame.url ? `${frame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(apps|packages)\//, '$1/')}:${frame.lineNumber + 1}` : '';
    const fn = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us / 1000);
  }
  const busyMs = busyUs / 1000;
  return {
    busyMs,
    idleMs: idleUs / 1000,
    byPackage: shares(byPackage, busyMs, top),
    byCaller: shares(byCaller, busyMs, top),
    byFunction: shares(byFunction, busyMs, top),
  };
}

export function formatProfileSummary(name: string, s: ProfileSummary): string {
  const line = (x: Share) => `  ${x.percent.toFixed(1).padStart(5)}%  ${Math.round(x.ms).toString().padStart(7)} ms  ${x.name}`;
  return [
    `${name}: ${Math.round(s.busyMs)} ms busy, ${Math.round(s.idleMs)} ms idle`,
    ' by package, Node internals charged to their caller:',
    ...s.byCaller.map(line),
    ' by package (self time):',
    ...s.byPackage.map(line),
    ' by function (self time):',
    ...s.byFunction.map(line),
  ].join('\n');
}
