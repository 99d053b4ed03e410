// The YAML that Helm's library accepts in a rendered manifest, read by every reader of ours (identities, drift
// repair's full objects, the post-renderer's rewrite) as Helm reads it. One row per quirk; the integration test
// test/integration/operator/helm-quirks.test.ts installs a chart that has them all, with helm 3 and helm 4.
import { describe, expect, it } from 'vitest';
import { manifestObjects, splitManifest } from './manifest.js';
import { transformManifest } from './manifest-edit.js';

const label = (obj: Record<string, unknown>) => ({
  ...obj,
  metadata: { ...(obj.metadata as object), labels: { owned: 'yes' } },
});

interface Quirk {
  readonly name: string;
  readonly manifest: string;
  /** What Helm reads: the one object's full form (YAML 1.1 scalars, as manifestObjects gives it). */
  readonly helmReads: Record<string, unknown>;
}

const QUIRKS: readonly Quirk[] = [
  {
    name: 'a key repeated in a mapping (the last value wins)',
    manifest:
      '---\n# Source: q/templates/svc.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n    a: "1"\n  labels:\n    l: first\n  annotations:\n    b: "2"\n  labels:\n    l: second\nspec:\n  ports: [{port: 80}]\n',
    helmReads: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', annotations: { b: '2' }, labels: { l: 'second' } },
      spec: { ports: [{ port: 80 }] },
    },
  },
  {
    name: 'a document that is only comments, and one that is only ---',
    manifest:
      '---\n# Source: q/templates/off.yaml\n# disabled by a value\n---\n---\n# Source: q/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n',
    helmReads: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
  },
  {
    name: 'a byte order mark at the start of a template',
    manifest: '---\n# Source: q/templates/bom.yaml\n\uFEFFapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bom\n',
    helmReads: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bom' } },
  },
  {
    name: 'CRLF line ends',
    manifest:
      '---\r\n# Source: q/templates/crlf.yaml\r\napiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: crlf\r\ndata:\r\n  k: v\r\n',
    helmReads: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'crlf' }, data: { k: 'v' } },
  },
  {
    name: 'YAML 1.1 booleans (yes, on, off) and octal',
    manifest:
      '---\n# Source: q/templates/pod.yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  automountServiceAccountToken: off\n  hostNetwork: no\n  enableServiceLinks: yes\n  volumes:\n  - name: v\n    configMap:\n      name: c\n      defaultMode: 0644\n',
    helmReads: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        automountServiceAccountToken: false,
        hostNetwork: false,
        enableServiceLinks: true,
        volumes: [{ name: 'v', configMap: { name: 'c', defaultMode: 0o644 } }],
      },
    },
  },
];

describe.each(QUIRKS)('a rendered manifest with $name', ({ manifest, helmReads }) => {
  const meta = helmReads.metadata as { name: string };

  it('names its object', () => {
    expect(splitManifest(manifest)).toEqual([
      expect.objectContaining({
        apiVersion: helmReads.apiVersion,
        kind: helmReads.kind,
        metadata: { name: meta.name },
      }),
    ]);
  });

  it('reads the object in full as Helm does', () => {
    expect(manifestObjects(manifest)).toEqual([helmReads]);
  });

  it('is rewritten by the post-renderer into a manifest that Helm reads as the labelled object', () => {
    const out = transformManifest(manifest, label);
    expect(manifestObjects(out)).toEqual([label(helmReads)]);
  });
});

describe('the post-renderer on documents it does not label', () => {
  it('hands them back byte for byte: comment-only, ---, a mapping without kind, a string, a list', () => {
    const untouched = [
      '---\n# Source: q/templates/off.yaml\n# nothing: rendered\n',
      '---\n',
      '---\r\n# Source: q/templates/values.yaml\r\nsome: value   # a comment\r\nsome: other\r\n',
      '---\njust a string\n',
      '---\n- a: list\n',
    ];
    const object = '---\n# Source: q/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n';
    const out = transformManifest([untouched[0], object, ...untouched.slice(1)].join(''), label);
    expect(out).toBe(
      [
        untouched[0],
        "---\n# Source: q/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    owned: 'yes'\n",
        ...untouched.slice(1),
      ].join(''),
    );
  });
});
