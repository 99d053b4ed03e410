import { describe, expect, it } from 'vitest';
import { loadOlmManifests, manifestBase, releaseTag, sameVersion } from './manifests.js';

const CRDS =
  'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.operators.coreos.com}\n';
const OLM = (v: string) =>
  `apiVersion: v1\nkind: Namespace\nmetadata: {name: olm}\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: packageserver, namespace: olm, labels: {olm.version: ${v}}}\n`;
const signal = new AbortController().signal;
const noFiles = { readFile: () => Promise.reject(new Error('ENOENT')) };

describe('OLM release tags and where the manifests are read from', () => {
  it('tags versions as OLM names its releases (operator-sdk formatVersion)', () => {
    expect(releaseTag('0.31.0')).toBe('v0.31.0');
    expect(releaseTag('v0.31.0')).toBe('v0.31.0');
    expect(releaseTag('0.16.1')).toBe('0.16.1');
    expect(releaseTag('latest')).toBe('latest');
    expect(sameVersion('v0.31.0', '0.31.0')).toBe(true);
    expect(sameVersion('0.30.0', '0.31.0')).toBe(false);
  });

  it("is OLM's release download unless a folder or URL is given", () => {
    expect(manifestBase('0.31.0', undefined)).toBe(
      'https://github.com/operator-framework/operator-lifecycle-manager/releases/download/v0.31.0',
    );
    expect(manifestBase('latest', '')).toBe(
      'https://github.com/operator-framework/operator-lifecycle-manager/releases/latest/download',
    );
    expect(manifestBase('0.31.0', '/cache/olm/manifests/')).toBe('/cache/olm/manifests');
  });
});

describe('loadOlmManifests', () => {
  it('fetches crds.yaml and olm.yaml of the release', async () => {
    const urls: string[] = [];
    const fetch = async (url: string) => {
      urls.push(url);
      return new Response(url.endsWith('crds.yaml') ? CRDS : OLM('v0.31.0'));
    };
    const m = await loadOlmManifests('0.31.0', undefined, { fetch, ...noFiles }, signal);
    expect(urls.sort()).toEqual([
      'https://github.com/operator-framework/operator-lifecycle-manager/releases/download/v0.31.0/crds.yaml',
      'https://github.com/operator-framework/operator-lifecycle-manager/releases/download/v0.31.0/olm.yaml',
    ]);
    expect(m.crds.map((o) => o.metadata.name)).toEqual(['a.operators.coreos.com']);
    expect(m.resources.map((o) => o.kind)).toEqual(['Namespace', 'ClusterServiceVersion']);
  });

  it('says what to do without a network, and names a release without manifests', async () => {
    const offline = { fetch: () => Promise.reject(new TypeError('fetch failed')), ...noFiles };
    await expect(loadOlmManifests('0.31.0', undefined, offline, signal)).rejects.toMatchObject({
      code: 'OLM_MANIFESTS_UNAVAILABLE',
      message: expect.stringContaining('point --manifests (or HELM_OPERATOR_OLM_MANIFESTS) at a folder'),
    });
    const missing = { fetch: async () => new Response('', { status: 404 }), ...noFiles };
    await expect(loadOlmManifests('0.99.0', undefined, missing, signal)).rejects.toMatchObject({
      message: expect.stringContaining('404 Not Found; manifests may not exist for this OLM release'),
    });
  });

  it('reads a folder, and refuses one of another version', async () => {
    const files: Record<string, string> = { '/m/crds.yaml': CRDS, '/m/olm.yaml': OLM('0.31.0') };
    const readers = { fetch: () => Promise.reject(new Error('no')), readFile: async (p: string) => files[p] ?? '' };
    expect((await loadOlmManifests('v0.31.0', '/m', readers, signal)).from).toBe('/m');
    await expect(loadOlmManifests('0.30.0', '/m', readers, signal)).rejects.toMatchObject({
      code: 'OLM_MANIFESTS_UNAVAILABLE',
      message: '/m holds OLM 0.31.0, not 0.30.0; pass --version=0.31.0',
    });
    const unreadable = { fetch: readers.fetch, readFile: () => Promise.reject(new Error('ENOENT')) };
    await expect(loadOlmManifests('0.31.0', '/nowhere', unreadable, signal)).rejects.toMatchObject({
      message: expect.stringMatching(/^cannot read \/nowhere\/(crds|olm)\.yaml: ENOENT$/),
    });
  });
});
