// Reading the API server's unknown-field warnings from helm stderr and naming the objects that hold the fields.
import { describe, expect, it } from 'vitest';
import { appliedRelease, MAX_UNKNOWN_FIELDS, parsePath, unknownFieldPaths, unknownFields } from './warnings.js';

// What helm 3.22 printed on stderr for a Service with `spec.notAField` and `spec.ports[0].bogusPortField` (klog).
const HELM3_STDERR = [
  'I1201 11:05:48.290109    7283 warnings.go:107] "Warning: unknown field \\"spec.notAField\\""',
  'I1201 11:05:48.290152    7283 warnings.go:107] "Warning: unknown field \\"spec.ports[0].bogusPortField\\""',
  '',
].join('\n');

const MANIFEST = `---
# Source: uf/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-cm
data:
  a: "1"
---
# Source: uf/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web-svc
spec:
  notAField: 1
  ports:
    - port: 80
      bogusPortField: x
`;

const none = (text: string) => text;

describe('unknown-field warnings on helm stderr', () => {
  it('reads each field path once from klog-quoted and plain warning lines', () => {
    const stderr = `${HELM3_STDERR}${HELM3_STDERR}Warning: unknown field "metadata.bogus"\nW1201 other warning\n`;
    expect(unknownFieldPaths(stderr)).toEqual(['spec.notAField', 'spec.ports[0].bogusPortField', 'metadata.bogus']);
  });

  it('finds nothing in stderr without unknown-field warnings', () => {
    expect(unknownFieldPaths('Warning: spec.template: deprecated\nlevel=WARN msg="x"\n')).toEqual([]);
    expect(unknownFields('', MANIFEST, none)).toEqual([]);
  });

  it('names the objects of the manifest that hold each field', () => {
    expect(unknownFields(HELM3_STDERR, MANIFEST, none)).toEqual([
      { field: 'spec.notAField', objects: ['Service/web-svc'] },
      { field: 'spec.ports[0].bogusPortField', objects: ['Service/web-svc'] },
    ]);
  });

  it('names the namespace when the manifest sets one, and no object when none holds the field', () => {
    const manifest = MANIFEST.replace('name: web-svc', 'name: web-svc\n  namespace: other');
    expect(unknownFields('Warning: unknown field "spec.notAField"', manifest, none)).toEqual([
      { field: 'spec.notAField', objects: ['Service/other/web-svc'] },
    ]);
    expect(unknownFields('Warning: unknown field "spec.gone"', manifest, none)).toEqual([
      { field: 'spec.gone', objects: [] },
    ]);
  });

  it('still reports the fields when the manifest cannot be read', () => {
    expect(unknownFields(HELM3_STDERR, 'a: [unclosed', none).map((f) => f.objects)).toEqual([[], []]);
  });

  it('reports at most MAX_UNKNOWN_FIELDS fields', () => {
    const stderr = Array.from({ length: 50 }, (_, i) => `Warning: unknown field "spec.f${i}"`).join('\n');
    expect(unknownFields(stderr, MANIFEST, none)).toHaveLength(MAX_UNKNOWN_FIELDS);
  });

  it('scrubs paths and object names through the redactor it is given', () => {
    const out = unknownFields(HELM3_STDERR, MANIFEST, (t) => t.replace('web-svc', '<redacted>'));
    expect(out[0]).toEqual({ field: 'spec.notAField', objects: ['Service/<redacted>'] });
  });

  it('parses dotted paths with list indexes, and refuses other syntaxes', () => {
    expect(parsePath('spec.ports[0].name')).toEqual(['spec', 'ports', 0, 'name']);
    expect(parsePath('spec.a[1][2]')).toEqual(['spec', 'a', 1, 2]);
    expect(parsePath('spec.ports[port=80]')).toBeUndefined();
    expect(parsePath('spec..x')).toBeUndefined();
  });
});

describe('the release of an install or upgrade', () => {
  const stdout = JSON.stringify({
    name: 'web',
    namespace: 'apps',
    version: 1,
    info: { status: 'deployed' },
    manifest: MANIFEST,
  });
  const ref = { release: 'web', namespace: 'apps' };

  it('carries no unknownFields when helm warned about none', () => {
    expect(appliedRelease({ stdout, stderr: '' }, 'install', ref, [])).not.toHaveProperty('unknownFields');
  });

  it('carries the unknown fields, with the release values scrubbed from them', () => {
    const stderr = 'Warning: unknown field "spec.notAField"\nWarning: unknown field "spec.hunter2-very-secret"\n';
    const r = appliedRelease({ stdout, stderr }, 'upgrade', ref, ['hunter2-very-secret']);
    expect(r.version).toBe(1);
    expect(r.unknownFields).toEqual([
      { field: 'spec.notAField', objects: ['Service/web-svc'] },
      { field: 'spec.<redacted>', objects: [] },
    ]);
  });
});
