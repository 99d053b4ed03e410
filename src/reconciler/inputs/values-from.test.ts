// chartValues: references below the spec below the overrides, each object read once per reconcile through the API
// (NotFound is "none", Forbidden says which RBAC to grant); valuesFromFailure: terminal for a malformed annotation,
// retried after the release backoff otherwise; secretsHidden/hideSecrets keep Secret values out of helm's words.

import { describe, expect, it } from 'vitest';
import { configMaps, FakeKubeApi } from '../../../test/fakes/kube-api.js';
import { ValuesFromError } from '../../config/values-from.js';
import { RetryLaterError, TerminalError } from '../../core/errors.js';
import { chain } from '../../helm/middleware.js';
import type { HelmClient, InstallParams } from '../../helm/types.js';
import { ForbiddenError } from '../../kube/errors.js';
import type { KubeObject } from '../../kube/types.js';
import { referenceReader } from '../../references/reference-reader.js';
import type { CustomResource } from '../types.js';
import { chartValues, hideSecrets, secretsHidden, valuesFromFailure } from './values-from.js';

const ANNOTATION = 'helm.sdk.operatorframework.io/values-from';
const signal = new AbortController().signal;
const b64 = (s: string) => Buffer.from(s).toString('base64');

const cr = (refs: unknown): CustomResource => ({
  apiVersion: 'demo.example.com/v1alpha1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'apps', annotations: { [ANNOTATION]: JSON.stringify(refs) } },
});
const obj = (kind: 'ConfigMap' | 'Secret', name: string, data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name, namespace: 'apps' },
  data: kind === 'Secret' ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) : data,
});

describe('chartValues', () => {
  it('without the annotation: the spec with the overrides over it, and nothing read', async () => {
    const kube = new FakeKubeApi();
    const got = await chartValues({
      cr: { ...cr([]), metadata: { name: 'web', namespace: 'apps' } },
      spec: { a: 1, b: { c: 1 } },
      overrides: { b: { c: 'o' } },
      reader: referenceReader(kube),
      signal,
    });
    expect(got).toEqual({ values: { a: 1, b: { c: 'o' } }, secrets: [], shadowed: [] });
    expect(kube.calls).toEqual([]);
  });

  it('merges references, then the spec, then the overrides (later wins, key by key)', async () => {
    const kube = new FakeKubeApi({
      objects: [
        obj('ConfigMap', 'base', { 'values.yaml': 'image: {repo: r, tag: cm}\nreplicas: 1\nfrom: configmap\n' }),
        obj('Secret', 'db', { password: 's3cr3t', 'values.yaml': 'db: {user: admin}\n' }),
      ],
    });
    const got = await chartValues({
      cr: cr([
        { kind: 'ConfigMap', name: 'base' },
        { kind: 'Secret', name: 'db' },
        { kind: 'Secret', name: 'db', valuesKey: 'password', targetPath: 'db.password' },
      ]),
      spec: { replicas: 3, image: { tag: 'spec' } },
      overrides: { image: { tag: 'override' } },
      reader: referenceReader(kube),
      signal,
    });
    expect(got.values).toEqual({
      image: { repo: 'r', tag: 'override' },
      replicas: 3,
      from: 'configmap',
      db: { user: 'admin', password: 's3cr3t' },
    });
    expect([...got.secrets].sort()).toEqual(['admin', 's3cr3t']);
    // The Secret named twice is read once.
    expect(kube.keysOf('get').sort()).toEqual(['configmaps/apps/base', 'secrets/apps/db']);
  });

  it('reads only from the CR namespace', async () => {
    const kube = new FakeKubeApi({
      objects: [{ ...obj('Secret', 'db', { 'values.yaml': 'a: 1\n' }), metadata: { name: 'db', namespace: 'other' } }],
    });
    const err = await chartValues({
      cr: cr([{ kind: 'Secret', name: 'db' }]),
      spec: {},
      overrides: {},
      reader: referenceReader(kube),
      signal,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValuesFromError);
    expect((err as ValuesFromError).message).toMatch(/Secret apps\/db not found/);
  });

  it('says which RBAC to grant when the operator may not read the object', async () => {
    const kube = new FakeKubeApi();
    kube.failOn(
      { verb: 'get', plural: 'secrets' },
      new ForbiddenError({ status: 403, serverMessage: 'secrets "db" is forbidden' }),
    );
    const err = (await chartValues({
      cr: cr([{ kind: 'Secret', name: 'db' }]),
      spec: {},
      overrides: {},
      reader: referenceReader(kube),
      signal,
    }).catch((e: unknown) => e)) as ValuesFromError;
    expect(err.code).toBe('VALUES_FROM_UNRESOLVED');
    expect(err.message).toMatch(
      /cannot read Secret apps\/db: the operator may not get secrets in apps: grant get, list and watch on secrets/,
    );
    expect(err.message).toContain('--values-from');
  });

  it('refuses a malformed annotation before reading anything', async () => {
    const kube = new FakeKubeApi();
    const bad: CustomResource = {
      ...cr([]),
      metadata: { name: 'web', namespace: 'apps', annotations: { [ANNOTATION]: 'kind: Secret' } },
    };
    const err = (await chartValues({ cr: bad, spec: {}, overrides: {}, reader: referenceReader(kube), signal }).catch(
      (e: unknown) => e,
    )) as ValuesFromError;
    expect(err.code).toBe('VALUES_FROM_INVALID');
    expect(kube.calls).toEqual([]);
  });

  it('refuses the annotation on a cluster-scoped CR, which has no namespace to read from', async () => {
    const kube = new FakeKubeApi();
    const clusterScoped: CustomResource = {
      ...cr([]),
      metadata: { name: 'web', annotations: { [ANNOTATION]: '[{kind: Secret, name: db}]' } },
    };
    const err = (await chartValues({
      cr: clusterScoped,
      spec: {},
      overrides: {},
      reader: referenceReader(kube),
      signal,
    }).catch((e: unknown) => e)) as ValuesFromError;
    expect(err.code).toBe('VALUES_FROM_INVALID');
    expect(err.message).toMatch(/cluster-scoped custom resource has no namespace/);
    expect(kube.calls).toEqual([]);
  });

  it('reads a ConfigMap through the API as the configmaps resource', async () => {
    const kube = new FakeKubeApi({ objects: [obj('ConfigMap', 'c', { 'values.yaml': 'a: 1\n' })] });
    await chartValues({
      cr: cr([{ kind: 'ConfigMap', name: 'c' }]),
      spec: {},
      overrides: {},
      reader: referenceReader(kube),
      signal,
    });
    expect(kube.callsOf('get')[0]?.res).toEqual(configMaps);
  });
});

describe('valuesFromFailure', () => {
  it('is terminal for a malformed annotation (editing it reconciles the CR)', () => {
    const err = valuesFromFailure(new ValuesFromError('bad', 'VALUES_FROM_INVALID'), { key: 'apps/web', failures: 1 });
    expect(err).toBeInstanceOf(TerminalError);
    expect((err as TerminalError).cause).toBeInstanceOf(ValuesFromError);
  });

  it('retries an unresolved reference after the release backoff, keeping its code', () => {
    const err = valuesFromFailure(new ValuesFromError('missing', 'VALUES_FROM_UNRESOLVED'), {
      key: 'apps/web',
      failures: 2,
      backoff: { baseMs: 1000, maxMs: 60_000 },
    });
    expect(err).toBeInstanceOf(RetryLaterError);
    expect(err).toMatchObject({ code: 'VALUES_FROM_UNRESOLVED', retryAfterMs: 2000 });
  });
});

describe('secretsHidden', () => {
  it('adds the strings to hide to every release command, and leaves helm alone when there are none', async () => {
    const seen: (readonly string[] | undefined)[] = [];
    const helm = {
      version: async () => ({ version: 'v3', major: 3, minor: 22 }),
      install: async (p: InstallParams) => {
        seen.push(p.secrets);
        return {} as never;
      },
      upgrade: async (p) => {
        seen.push(p.secrets);
        return {} as never;
      },
      dryRunUpgrade: async (p) => {
        seen.push(p.secrets);
        return {} as never;
      },
      uninstall: async (p) => void seen.push(p.secrets),
      rollback: async (p) => void seen.push(p.secrets),
    } satisfies HelmClient;
    const plain = chain(helm, [secretsHidden([])]);
    await plain.uninstall({ release: 'web', namespace: 'apps', signal });
    expect(seen).toEqual([undefined]);
    seen.length = 0;
    const wrapped = chain(helm, [secretsHidden(['pw'])]);
    const release = { release: 'web', namespace: 'apps', signal };
    await wrapped.install({ ...release, chart: 'c', values: {}, secrets: ['own'] });
    await wrapped.upgrade({ ...release, chart: 'c', values: {} });
    await wrapped.uninstall(release);
    await wrapped.rollback(release);
    expect(seen).toEqual([['own', 'pw'], ['pw'], ['pw'], ['pw']]);
  });
});

describe('hideSecrets', () => {
  it('redacts whole occurrences only, in text such as a chart NOTES', () => {
    expect(hideSecrets('password is pw1 (not pw10)', ['pw1'])).toBe('password is <redacted> (not pw10)');
    expect(hideSecrets('nothing to hide', [])).toBe('nothing to hide');
  });
});
