import { describe, expect, it } from 'vitest';
import { ClusterConfigError, existingKubeconfig, parseClusterMode } from './cluster-config.js';

describe('parseClusterMode', () => {
  it.each([
    [undefined, 'local'],
    ['', 'local'],
    ['local', 'local'],
    ['existing', 'existing'],
    [' k3s ', 'k3s'],
  ])('maps TEST_CLUSTER=%j to %s', (value, mode) => {
    expect(parseClusterMode(value)).toBe(mode);
  });

  it('rejects an unknown mode and names the valid ones', () => {
    expect(() => parseClusterMode('kind')).toThrow(ClusterConfigError);
    expect(() => parseClusterMode('kind')).toThrow(/"local".*"existing".*"k3s"/);
  });
});

describe('existingKubeconfig', () => {
  it('returns the file KUBECONFIG names when it exists', () => {
    expect(existingKubeconfig({ KUBECONFIG: '/k/config' }, (p) => p === '/k/config')).toBe('/k/config');
  });

  it('fails clearly when KUBECONFIG is unset', () => {
    expect(() => existingKubeconfig({}, () => true)).toThrow(/needs KUBECONFIG/);
  });

  it('fails clearly when KUBECONFIG is a list', () => {
    expect(() => existingKubeconfig({ KUBECONFIG: '/a:/b' }, () => true)).toThrow(/one file, not a list/);
  });

  it('fails clearly when the file is missing', () => {
    expect(() => existingKubeconfig({ KUBECONFIG: '/nope' }, () => false)).toThrow(/\/nope does not exist/);
  });
});
