import { describe, expect, it } from 'vitest';
import {
  helmUninstallSkips,
  ManifestParseError,
  resourcePolicy,
  resourcePolicyKeep,
  splitManifest,
} from './manifest.js';

/** A manifest as `helm get manifest` prints it. */
const RENDERED = `---
# Source: demo/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: demo
  labels:
    app.kubernetes.io/name: demo
---
# Source: demo/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: demo-credentials
  namespace: other
  annotations:
    helm.sh/resource-policy: keep
    replicas: 3
type: Opaque
stringData:
  password: hunter2
---
# Source: demo/templates/role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: demo-reader
rules: []
`;

describe('splitManifest', () => {
  it('returns the identity of every document of a rendered manifest, in order, with its template', () => {
    expect(splitManifest(RENDERED)).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'demo' },
        source: 'demo/templates/serviceaccount.yaml',
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'demo-credentials', namespace: 'other' },
        annotations: { 'helm.sh/resource-policy': 'keep' },
        source: 'demo/templates/secret.yaml',
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'demo-reader' },
        source: 'demo/templates/role.yaml',
      },
    ]);
  });

  it('never keeps object bodies', () => {
    const text = JSON.stringify(splitManifest(RENDERED));
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('app.kubernetes.io/name');
  });

  it('skips empty documents, comment-only documents and documents without apiVersion, kind or name', () => {
    const manifest = [
      '',
      '---',
      '---',
      '# Source: demo/templates/empty.yaml',
      '---',
      '# Source: demo/templates/no-kind.yaml',
      'apiVersion: v1',
      'metadata: {name: a}',
      '---',
      'kind: ConfigMap',
      'metadata: {name: b}',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {generateName: c-}',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: ""}',
      '---',
      'just a string',
      '---',
      '- a list',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: kept, namespace: ""}',
      '...',
      '',
    ].join('\n');
    expect(splitManifest(manifest)).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' } }]);
    expect(splitManifest('')).toEqual([]);
    expect(splitManifest('\n---\n# nothing here\n')).toEqual([]);
  });

  it('reads a manifest without separators, with CRLF line ends, or with content on the --- line', () => {
    expect(splitManifest('apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: a\r\n')).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } },
    ]);
    expect(splitManifest('--- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n')).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } },
    ]);
  });

  it('does not split at --- inside a block scalar or at ---- lines', () => {
    const manifest = [
      '---',
      '# Source: demo/templates/cm.yaml',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: script',
      'data:',
      '  run.sh: |',
      '    ---',
      '    echo hi',
      '',
    ].join('\n');
    expect(splitManifest(manifest)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'script' }, source: 'demo/templates/cm.yaml' },
    ]);
  });

  it('replaces a List by its items, and typed-list items without apiVersion and kind inherit them', () => {
    const manifest = `---
# Source: demo/templates/list.yaml
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: one}
  - apiVersion: apps/v1
    kind: DeploymentList
    items:
      - metadata: {name: nested, namespace: team}
  - metadata: {name: no-kind-in-plain-list}
  - not a mapping
---
apiVersion: v1
kind: ConfigMapList
items:
  - metadata: {name: two}
  - apiVersion: v1
    kind: Secret
    metadata: {name: three}
---
apiVersion: example.com/v1
kind: AllowList
metadata: {name: a-real-kind-ending-in-list}
spec: {}
`;
    expect(splitManifest(manifest)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, source: 'demo/templates/list.yaml' },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'nested', namespace: 'team' },
        source: 'demo/templates/list.yaml',
      },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'three' } },
      { apiVersion: 'example.com/v1', kind: 'AllowList', metadata: { name: 'a-real-kind-ending-in-list' } },
    ]);
  });

  it('keeps YAML 1.1-looking scalars as strings and resolves merge keys', () => {
    const manifest = `apiVersion: v1
kind: ConfigMap
metadata:
  <<: {name: merged, namespace: yes}
  annotations: {created: 2024-01-01, flag: on}
`;
    expect(splitManifest(manifest)).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'merged', namespace: 'yes' },
        annotations: { created: '2024-01-01', flag: 'on' },
      },
    ]);
  });

  it('rejects a malformed document with an error that names its template and line but no manifest content', () => {
    const manifest = `---
# Source: demo/templates/ok.yaml
apiVersion: v1
kind: ConfigMap
metadata: {name: ok}
---
# Source: demo/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: creds
stringData:
  password: hunter2
   token: s3cr3t-token
`;
    const err = catchError(() => splitManifest(manifest));
    expect(err).toBeInstanceOf(ManifestParseError);
    expect(err).toMatchObject({ code: 'HELM_MANIFEST_INVALID', source: 'demo/templates/secret.yaml', line: 14 });
    const error = err as ManifestParseError;
    expect(error.message).toContain('template demo/templates/secret.yaml');
    expect(error.message).toContain('line 14');
    for (const text of [error.message, String(error.stack), JSON.stringify(error)]) {
      expect(text).not.toMatch(/hunter2|s3cr3t|token|password|creds/);
    }
    expect(error.cause).toBeUndefined();
  });

  it('leaves out parser reasons that quote the input', () => {
    const err = catchError(() => splitManifest('apiVersion: v1\nkind: ConfigMap\ndata:\n  k: *s3cr3t\n'));
    expect(err).toBeInstanceOf(ManifestParseError);
    const error = err as ManifestParseError;
    expect(error.message).not.toContain('s3cr3t');
    expect(error.message).toContain('a release manifest document is not valid YAML at manifest line 4');
  });

  it('rejects duplicate keys, as Helm does', () => {
    expect(() => splitManifest('apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: a}\n')).toThrow(
      ManifestParseError,
    );
  });
});

describe('resource policy', () => {
  const withPolicy = (value: string) => ({ annotations: { 'helm.sh/resource-policy': value } });

  it('recognises keep regardless of case and surrounding space', () => {
    for (const value of ['keep', 'KEEP', ' Keep ', '\tkeep\n'])
      expect(resourcePolicyKeep(withPolicy(value))).toBe(true);
  });

  it('does not treat other values, other annotations or no annotations as keep', () => {
    for (const value of ['', 'delete', 'keep-it', 'k eep']) expect(resourcePolicyKeep(withPolicy(value))).toBe(false);
    expect(resourcePolicyKeep({ annotations: { 'example.com/resource-policy': 'keep' } })).toBe(false);
    expect(resourcePolicyKeep({})).toBe(false);
  });

  it('reads the policy of a parsed object', () => {
    const [secret] = splitManifest(RENDERED).filter((o) => o.kind === 'Secret');
    expect(secret && resourcePolicyKeep(secret)).toBe(true);
    expect(secret && resourcePolicy(secret)).toBe('keep');
  });

  it('reports every object with a resource-policy annotation as skipped by helm uninstall, as Helm does', () => {
    expect(helmUninstallSkips(withPolicy('keep'))).toBe(true);
    expect(helmUninstallSkips(withPolicy('delete'))).toBe(true);
    expect(helmUninstallSkips({ annotations: { other: 'keep' } })).toBe(false);
    expect(helmUninstallSkips({})).toBe(false);
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}
