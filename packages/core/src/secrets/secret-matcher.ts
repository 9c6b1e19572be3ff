/**
 * Finds where any of many strings occurs in a text, in one pass (Aho-Corasick over UTF-16 code
 * units): the time is linear in the text's length plus the strings' total length, whatever the
 * strings are, where one regular expression alternating them all could take far longer.
 *
 * Matching is on code units, exactly: no Unicode segmentation or normalisation, so a combining
 * character after a string does not hide it.
 */

const ROOT = 0;
const NONE = -1;

/** Nodes 1..count-1 sorted by depth, in linear time (a counting sort). */
function byDepth(depth: Int32Array, count: number, maxDepth: number): Int32Array {
  // next[d]: where the next node of depth d goes (nodes of smaller depths come first).
  const next = new Int32Array(maxDepth + 2);
  for (let node = 1; node < count; node += 1) next[depth[node] + 1] += 1;
  for (let d = 1; d < next.length; d += 1) next[d] += next[d - 1];
  const sorted = new Int32Array(count - 1);
  for (let node = 1; node < count; node += 1) sorted[next[depth[node]]++] = node;
  return sorted;
}

export class MultiMatcher {
  /** The longest of the strings, in code units (0 when there are none). */
  readonly longest: number;
  // Most nodes of long strings have one child: it is kept in two typed arrays, and only nodes
  // with several children get a map (a map per node, or one keyed by node and unit, costs ten
  // times as much to build).
  private readonly onlyUnit: Int32Array;
  private readonly onlyChild: Int32Array;
  private readonly branches = new Map<number, Map<number, number>>();
  // The root is asked about every character of the text: a direct table answers it.
  private readonly rootChild = new Int32Array(65_536).fill(NONE);
  private readonly fail: Int32Array;
  /** Length of the longest string that ends at a node: its own, or one reached through failure links. */
  private readonly ending: Int32Array;

  constructor(strings: readonly string[]) {
    const patterns = strings.filter((s) => s.length > 0);
    const capacity = patterns.reduce((sum, s) => sum + s.length, 1);
    const parent = new Int32Array(capacity);
    const unit = new Uint16Array(capacity);
    const depth = new Int32Array(capacity);
    this.onlyUnit = new Int32Array(capacity).fill(NONE);
    this.onlyChild = new Int32Array(capacity);
    this.fail = new Int32Array(capacity);
    this.ending = new Int32Array(capacity);
    let nodes = 1;
    for (const pattern of patterns) {
      let node = ROOT;
      for (let i = 0; i < pattern.length; i += 1) {
        const code = pattern.charCodeAt(i);
        let next = this.child(node, code);
        if (next === NONE) {
          next = nodes++;
          this.addChild(node, code, next);
          parent[next] = node;
          unit[next] = code;
          depth[next] = depth[node] + 1;
        }
        node = next;
      }
      this.ending[node] = pattern.length;
    }
    this.longest = patterns.reduce((max, s) => Math.max(max, s.length), 0);
    // Failure links in order of depth (a node's link is shallower than the node itself).
    for (const node of byDepth(depth, nodes, this.longest)) {
      const code = unit[node];
      let link = ROOT;
      if (parent[node] !== ROOT) {
        let candidate = this.fail[parent[node]];
        for (;;) {
          const next = this.child(candidate, code);
          if (next !== NONE) {
            link = next;
            break;
          }
          if (candidate === ROOT) break;
          candidate = this.fail[candidate];
        }
      }
      this.fail[node] = link;
      if (this.ending[node] === 0) this.ending[node] = this.ending[link];
    }
  }

  private child(node: number, code: number): number {
    if (node === ROOT) return this.rootChild[code];
    if (this.onlyUnit[node] === code) return this.onlyChild[node];
    return this.branches.get(node)?.get(code) ?? NONE;
  }

  private addChild(node: number, code: number, child: number): void {
    if (node === ROOT) this.rootChild[code] = child;
    else if (this.onlyUnit[node] === NONE) {
      this.onlyUnit[node] = code;
      this.onlyChild[node] = child;
    } else {
      let branch = this.branches.get(node);
      if (!branch) this.branches.set(node, (branch = new Map()));
      branch.set(code, child);
    }
  }

  /**
   * The parts of `text` covered by occurrences, as [start, end) pairs in order: occurrences that
   * overlap make one range, so every character of every occurrence is inside a range.
   */
  ranges(text: string): [number, number][] {
    const ranges: [number, number][] = [];
    if (this.longest === 0) return ranges;
    let node = ROOT;
    for (let i = 0; i < text.length; i += 1) {
      const code = text.charCodeAt(i);
      for (;;) {
        const next = this.child(node, code);
        if (next !== NONE) {
          node = next;
          break;
        }
        if (node === ROOT) break;
        node = this.fail[node];
      }
      const length = this.ending[node];
      if (length === 0) continue;
      // The longest occurrence ending here covers every shorter one that ends here too.
      let start = i + 1 - length;
      while (ranges.length > 0 && ranges[ranges.length - 1][1] > start) start = Math.min(start, ranges.pop()![0]);
      ranges.push([start, i + 1]);
    }
    return ranges;
  }

  /** `text` with each range of ranges() replaced by `replacement`. */
  replace(text: string, replacement: string): string {
    const ranges = this.ranges(text);
    if (ranges.length === 0) return text;
    let out = '';
    let from = 0;
    for (const [start, end] of ranges) {
      out += text.slice(from, start) + replacement;
      from = end;
    }
    return out + text.slice(from);
  }
}
