import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { relevantRecords } from './relevant.js';

const record = (version: string, status: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: `sh.helm.release.v1.web.v${version}`, labels: { name: 'web', owner: 'helm', version, status } },
});
const names = (rs: readonly KubeObject[]) => rs.map((r) => r.metadata.labels?.version);

describe('relevantRecords', () => {
  it('keeps only the newest revision when it is the deployed one', () => {
    const history = [record('1', 'superseded'), record('3', 'deployed'), record('2', 'superseded')];
    expect(names(relevantRecords(history))).toEqual(['3']);
  });

  it('keeps the newest revision and the newest deployed one when an upgrade failed or is pending', () => {
    const failed = [record('1', 'superseded'), record('2', 'deployed'), record('3', 'failed')];
    expect(names(relevantRecords(failed))).toEqual(['2', '3']);
    const pending = [record('10', 'pending-upgrade'), record('9', 'deployed'), record('8', 'superseded')];
    expect(names(relevantRecords(pending))).toEqual(['10', '9']);
  });

  it('compares revisions as numbers, not as text', () => {
    expect(names(relevantRecords([record('9', 'superseded'), record('10', 'deployed')]))).toEqual(['10']);
  });

  it('keeps every record when one has no readable version label', () => {
    const odd = [record('1', 'deployed'), record('x', 'failed')];
    expect(relevantRecords(odd)).toBe(odd);
    expect(relevantRecords([])).toEqual([]);
  });
});
