// Guards the Node.js support claim: every locked runtime dependency accepts every Node version our `engines`
// field accepts, and every locked package (dev tools included) accepts the Node 22 and 24 lines we test on.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly engines?: { readonly node?: string } | readonly string[];
}
const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const nodeRanges = Object.entries(lock.packages).flatMap(([path, entry]) => {
  const range = Array.isArray(entry.engines) ? undefined : (entry.engines as { node?: string } | undefined)?.node;
  return path && range ? [{ name: path.replace(/^.*node_modules\//, ''), range, dev: entry.dev === true }] : [];
});

describe('the engines field', () => {
  it('starts at Node 22', () => {
    expect(semver.minVersion(pkg.engines.node)?.major).toBe(22);
  });

  it('is covered by the engines range of every runtime dependency', () => {
    const narrower = nodeRanges
      .filter((d) => !d.dev && !semver.subset(pkg.engines.node, d.range))
      .map((d) => `${d.name} (${d.range})`);
    expect(narrower).toEqual([]);
  });

  // Node 22.22 is the floor testcontainers (the optional k3s backend) asks for; 24.x is the provisioned LTS.
  it.each(['22.22.0', '24.0.0', process.versions.node])('Node %s satisfies every locked package', (version) => {
    const refused = nodeRanges.filter((d) => !semver.satisfies(version, d.range)).map((d) => `${d.name} (${d.range})`);
    expect(refused).toEqual([]);
  });
});
