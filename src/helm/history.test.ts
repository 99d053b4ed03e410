import { describe, expect, it } from 'vitest';
import { releaseRecord } from '../../test/fakes/helm.js';
import { isPending, lastDeployed, latest, summarize } from './history.js';
import { RELEASE_STATUSES } from './release.js';
import type { Release, ReleaseStatus } from './types.js';

function rev(version: number, status: ReleaseStatus): Release {
  return releaseRecord({ name: 'example', namespace: 'default', version, info: { status }, config: {} });
}

/** `'1:superseded 2:deployed'` → releases, in the given (deliberately unsorted) order. */
function history(spec: string): Release[] {
  return spec
    .split(' ')
    .filter((s) => s !== '')
    .map((s) => {
      const [version, status] = s.split(':');
      return rev(Number(version), status as ReleaseStatus);
    });
}

const versionOf = (release: Release | undefined) => release?.version;

describe('isPending', () => {
  it.each(RELEASE_STATUSES)('for %s', (status) => {
    expect(isPending(status)).toBe(status.startsWith('pending-'));
  });
});

describe('history selection', () => {
  it.each([
    // history, latest, last deployed, pending
    ['', undefined, undefined, false],
    ['1:deployed', 1, 1, false],
    ['1:superseded 3:deployed 2:superseded', 3, 3, false],
    ['3:failed 1:superseded 2:deployed', 3, 2, false],
    ['1:superseded 2:deployed 3:pending-upgrade', 3, 2, true],
    ['1:pending-install', 1, undefined, true],
    ['2:pending-rollback 1:failed', 2, undefined, true],
    ['1:deployed 2:pending-upgrade 3:failed', 3, 1, false],
    ['1:failed 2:failed', 2, undefined, false],
    ['4:uninstalling 3:deployed', 4, 3, false],
    ['1:superseded 2:uninstalled', 2, undefined, false],
    ['1:deployed 2:deployed 3:superseded', 3, 2, false],
  ])('in [%s]: latest %s, deployed %s, pending %s', (spec, latestVersion, deployedVersion, pending) => {
    const releases = history(spec);
    expect(versionOf(latest(releases))).toBe(latestVersion);
    expect(versionOf(lastDeployed(releases))).toBe(deployedVersion);
    const summary = summarize(releases);
    expect(versionOf(summary.latest)).toBe(latestVersion);
    expect(versionOf(summary.deployed)).toBe(deployedVersion);
    expect(summary.pending).toBe(pending);
  });

  it('leaves latest and deployed out of the summary of an empty history', () => {
    expect(summarize([])).toEqual({ pending: false });
  });

  it('does not reorder its input', () => {
    const releases = history('2:deployed 1:superseded 3:failed');
    summarize(releases);
    expect(releases.map((r) => r.version)).toEqual([2, 1, 3]);
  });
});
