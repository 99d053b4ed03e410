import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ManifestParseError } from './errors.js';
import { helmUninstallSkips, resourcePolicy, resourcePolicyKeep, splitManifest } from './manifest.js';
import { transformManifest } from './manifest-edit.js';

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

  it('reads a repeated key as its last value, as Helm does (manifest-quirks.test.ts has the others)', () => {
    expect(splitManifest('apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: a}\n')).toEqual([
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' } },
    ]);
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

describe('transformManifest', () => {
  type Obj = Record<string, unknown>;
  const identity = (obj: Obj): Obj => obj;
  /** Returns a copy, so that the document is written anew (an object returned as given is kept verbatim). */
  const rewrite = (obj: Obj): Obj => ({ ...obj });
  const labelled = (obj: Obj): Obj => ({
    ...obj,
    metadata: { ...(obj.metadata as Obj), labels: { marked: 'true' } },
  });
  /** The documents of a manifest as a YAML 1.1 reader (like Helm's Go parser) or a YAML 1.2 reader sees them. */
  const readAs = (version: '1.1' | '1.2', text: string): unknown[] =>
    parseAllDocuments(text, { version }).map((doc) => {
      expect(doc.errors).toEqual([]);
      return doc.toJS();
    });

  describe('when a rendered manifest is transformed', () => {
    it('rewrites every object and writes each as ---, its leading comments verbatim, then its YAML', () => {
      const manifest = [
        '---',
        '# Source: demo/templates/cm.yaml',
        '#   second comment line',
        '',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: a # a trailing comment',
        'data:',
        '  run.sh: |',
        '    ---',
        '    echo hi',
        '--- # Source: demo/templates/sa.yaml',
        'apiVersion: v1',
        'kind: ServiceAccount',
        'metadata: {name: b}',
        '',
      ].join('\n');
      expect(transformManifest(manifest, labelled)).toBe(
        [
          '---',
          '# Source: demo/templates/cm.yaml',
          '#   second comment line',
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: a',
          '  labels:',
          "    marked: 'true'",
          'data:',
          '  run.sh: |',
          '    ---',
          '    echo hi',
          '---',
          '# Source: demo/templates/sa.yaml',
          'apiVersion: v1',
          'kind: ServiceAccount',
          'metadata:',
          '  name: b',
          '  labels:',
          "    marked: 'true'",
          '',
        ].join('\n'),
      );
    });

    it('produces a stream that splitManifest reads back with the same objects and templates', () => {
      expect(splitManifest(transformManifest(RENDERED, identity))).toEqual(splitManifest(RENDERED));
    });

    it("keeps Helm 4's postrender-filename annotation untouched", () => {
      const manifest = `---
# Source: demo/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  annotations:
    postrenderer.helm.sh/postrender-filename: demo/templates/cm.yaml
`;
      expect(transformManifest(manifest, labelled)).toContain(
        '  annotations:\n    postrenderer.helm.sh/postrender-filename: demo/templates/cm.yaml\n',
      );
    });

    it('reads CRLF line ends, content on the --- line and a manifest without separators', () => {
      const seen: unknown[] = [];
      const record = (obj: Obj): Obj => {
        seen.push((obj.metadata as Obj).name);
        return obj;
      };
      transformManifest('# Source: x.yaml\r\napiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: a\r\n', record);
      transformManifest('--- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n', record);
      expect(seen).toEqual(['a', 'b']);
      expect(transformManifest('# Source: x.yaml\r\napiVersion: v1\r\nkind: Namespace\r\n', rewrite)).toBe(
        '---\n# Source: x.yaml\napiVersion: v1\nkind: Namespace\n',
      );
    });
  });

  describe('when a document is empty, not a mapping or not an object', () => {
    it('keeps empty, comment-only and object-less documents byte for byte without passing them to fn', () => {
      const manifest = [
        '---',
        '# Source: demo/templates/empty.yaml',
        '---',
        '',
        '---',
        'just a string',
        '---',
        '- a: list',
        '---',
        '# Source: demo/templates/no-kind.yaml',
        'apiVersion: v1',
        'metadata: {name: a}',
        '',
      ].join('\n');
      const passed: unknown[] = [];
      const out = transformManifest(manifest, (obj) => {
        passed.push(obj);
        return obj;
      });
      expect(passed).toEqual([]);
      expect(out).toBe(manifest);
      expect(transformManifest('', identity)).toBe('');
      expect(transformManifest('\n---\n# nothing here\n', identity)).toBe('\n---\n# nothing here\n');
    });
  });

  describe('when a document is a List', () => {
    it('rewrites each item, and typed-list items without apiVersion and kind are rewritten with them', () => {
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
      - metadata: {name: nested}
  - not a mapping
`;
      const passed: string[] = [];
      const out = transformManifest(manifest, (obj) => {
        passed.push(`${obj.apiVersion} ${obj.kind} ${(obj.metadata as Obj).name}`);
        return labelled(obj);
      });
      expect(passed).toEqual(['v1 ConfigMap one', 'apps/v1 Deployment nested']);
      expect(readAs('1.2', out)).toEqual([
        {
          apiVersion: 'v1',
          kind: 'List',
          items: [
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', labels: { marked: 'true' } } },
            {
              apiVersion: 'apps/v1',
              kind: 'DeploymentList',
              items: [
                { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nested', labels: { marked: 'true' } } },
              ],
            },
            'not a mapping',
          ],
        },
      ]);
      expect(out.startsWith('---\n# Source: demo/templates/list.yaml\napiVersion: v1\nkind: List\n')).toBe(true);
    });
  });

  describe('when a quoted string looks like a boolean, number, null or date', () => {
    it('stays a quoted string for YAML 1.1 and YAML 1.2 readers after a round trip', () => {
      const looksTyped = ['yes', 'no', 'on', 'off', 'y', 'n', 'true', 'null', '~', '', '1.0', '0755', '1_000'];
      const strings = [...looksTyped, '0x1F', '0o17', '1e3', '.inf', '2024-01-01', '12:30', '<<', '=', '-', '0b101'];
      const data = strings.map((value, i) => `  k${i}: ${JSON.stringify(value)}`).join('\n');
      const keys = looksTyped.map((key) => `  ${JSON.stringify(key)}: key`).join('\n');
      const manifest = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strings}\ndata:\n${data}\nbinaryData:\n${keys}\n`;
      const out = transformManifest(manifest, rewrite);
      const expected = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'strings' },
        data: Object.fromEntries(strings.map((value, i) => [`k${i}`, value])),
        binaryData: Object.fromEntries(looksTyped.map((key) => [key, 'key'])),
      };
      expect(readAs('1.2', out)).toEqual([expected]);
      expect(readAs('1.1', out)).toEqual([expected]);
      expect(out).toContain("k0: 'yes'\n");
      expect(out).toContain("k10: '1.0'\n");
    });
  });

  describe('when a plain scalar reads differently in YAML 1.1 (Helm) and YAML 1.2', () => {
    it('writes it back exactly as written, so Helm reads it as it would have without the transform', () => {
      const manifest = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  volumes:
    - name: scripts
      configMap: {name: scripts, defaultMode: 0755}
  flags: [yes, on, Off, 1_000, 0o17, 12345678901234567890, 1:20, 2024-01-01]
  plain: [true, 3, 1.5, null, 0x1F, text]
`;
      const seen: unknown[] = [];
      const out = transformManifest(manifest, (obj) => {
        const spec = obj.spec as Obj;
        const volume = (spec.volumes as Obj[])[0] as Obj;
        seen.push((volume.configMap as Obj).defaultMode, ...(spec.flags as unknown[]), ...(spec.plain as unknown[]));
        return rewrite(obj);
      });
      expect(seen.slice(0, 9).map((v) => [typeof v, String(v)])).toEqual(
        ['0755', 'yes', 'on', 'Off', '1_000', '0o17', '12345678901234567890', '1:20', '2024-01-01'].map((t) => [
          'object',
          t,
        ]),
      );
      expect(seen.slice(9)).toEqual([true, 3, 1.5, null, 31, 'text']);
      expect(out).toContain('      configMap:\n        name: scripts\n        defaultMode: 0755\n');
      expect(out).toContain(
        '  flags:\n    - yes\n    - on\n    - Off\n    - 1_000\n    - 0o17\n    - 12345678901234567890\n    - 1:20\n    - 2024-01-01\n',
      );
      const [pod] = readAs('1.1', out) as Obj[];
      expect(JSON.stringify(pod)).toContain('"defaultMode":493');
    });
  });

  describe('when a document is not valid YAML', () => {
    it('throws a ManifestParseError naming the template and line, with no manifest content', () => {
      const manifest = `---
# Source: demo/templates/ok.yaml
apiVersion: v1
kind: ConfigMap
metadata: {name: ok}
---
# Source: demo/templates/secret.yaml
apiVersion: v1
kind: Secret
stringData:
  password: hunter2
   token: s3cr3t-token
`;
      const err = catchError(() => transformManifest(manifest, identity));
      expect(err).toBeInstanceOf(ManifestParseError);
      expect(err).toMatchObject({ code: 'HELM_MANIFEST_INVALID', source: 'demo/templates/secret.yaml', line: 12 });
      const error = err as ManifestParseError;
      for (const text of [error.message, String(error.stack), JSON.stringify(error)]) {
        expect(text).not.toMatch(/hunter2|s3cr3t|token|password/);
      }
    });
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
