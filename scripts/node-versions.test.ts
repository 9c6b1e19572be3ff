import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { repoRoot } from '@cronsvc/core/testing';

// The Node.js versions the service runs on are the ones package.json's `engines.node` names
// (README, "Requirements"). Every package the lockfile installs must accept the lowest release of
// each of those lines, or `npm ci` warns EBADENGINE there (docs/TESTING.md, "Node.js versions").

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
}

const read = (file: string) => JSON.parse(readFileSync(path.join(repoRoot, file), 'utf8'));
const manifest = read('package.json') as { engines: { node: string } };
const lock = read('package-lock.json') as { packages: Record<string, LockedPackage> };

/** The lowest version of each line a range allows: `^20.19 || ^22.12 || >=24` -> 20.19.0, 22.12.0, 24.0.0. */
function lowestOfEachLine(range: string): string[] {
  return new semver.Range(range).set.map((comparators) => semver.minVersion(comparators.map((c) => c.value).join(' '))!.version);
}

describe('Node.js versions', () => {
  const supported = lowestOfEachLine(manifest.engines.node);

  it('the project names the Node.js 20, 22 and 24 lines, 24 being the one the README recommends', () => {
    expect(supported.map((v) => semver.major(v))).toEqual([20, 22, 24]);
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    expect(readme).toMatch(/Node\.js 24 LTS/);
  });

  it('every package in package-lock.json accepts the lowest release of each supported line', () => {
    const refusing: string[] = [];
    for (const [where, pkg] of Object.entries(lock.packages)) {
      // An old lockfile form lists engines as an array of strings; the lockfile version 3 uses an object.
      const node = pkg.engines && !Array.isArray(pkg.engines) ? pkg.engines.node : undefined;
      if (!where || !node) continue;
      for (const version of supported) {
        if (!semver.satisfies(version, node)) refusing.push(`${where}@${pkg.version} wants node ${node}, refusing ${version}`);
      }
    }
    expect(refusing).toEqual([]);
  });

  it('the check would see a package that wants Node.js 22 or later', () => {
    expect(supported.filter((version) => !semver.satisfies(version, '>=22.0.0'))).toEqual(['20.19.0']);
  });
});
