import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { releaseRecord } from '../../../test/fakes/helm.js';
import type { Release } from '../../helm/types.js';
import {
  isManifestMarker,
  MARKER_PREFIX,
  manifestToWaitFor,
  redactSecrets,
  STATUS_MANIFEST_CAP,
  StatusReleaseMemo,
  statusRelease,
  storedBytes,
} from './status-manifest.js';

const sha = (data: string | Buffer) => `sha256:${createHash('sha256').update(data).digest('hex')}`;
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A manifest as helm renders it: comments, blank lines and quoting that a YAML round trip would not keep. */
const CONFIGMAP = `---
# Source: demo/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: demo-config   # trailing comment
data:
  # the app reads SecretRef names from here
  mode: "yes"
  secretName: demo-credentials
`;
const SECRET = `---
# Source: demo/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: demo-credentials
  labels:
    app: demo
type: Opaque
data:
  password: ${b64('hunter2')}
  token: ${b64('t0ken-value')}
stringData:
  apiKey: s3cr3t-api-key
  flag: yes
  empty:
`;
const DEPLOYMENT = `---
# Source: demo/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo
spec:
  replicas: 1


  template: {}
`;
const MANIFEST = CONFIGMAP + SECRET + DEPLOYMENT;
const VALUES = ['hunter2', b64('hunter2'), 't0ken-value', b64('t0ken-value'), 's3cr3t-api-key'];

const release = (manifest: string, version = 3) => ({ name: 'demo', namespace: 'apps', version, manifest });

describe('redactSecrets', () => {
  const out = redactSecrets(MANIFEST);

  it('replaces every data and stringData value of a Secret with the sha256 of its bytes (data decoded)', () => {
    for (const v of VALUES) expect(out).not.toContain(v);
    expect(out).toContain(`password: ${sha('hunter2')}`);
    expect(out).toContain(`token: ${sha('t0ken-value')}`);
    expect(out).toContain(`apiKey: ${sha('s3cr3t-api-key')}`);
    // An ambiguous plain scalar is digested as written.
    expect(out).toContain(`flag: ${sha('yes')}`);
    // Nothing to hide in an empty value.
    expect(out).toMatch(/empty: null\n/);
  });

  it("keeps the Secret's other fields and its # Source: comment", () => {
    expect(out).toContain('# Source: demo/templates/secret.yaml\napiVersion: v1\nkind: Secret\n');
    expect(out).toContain('  name: demo-credentials\n  labels:\n    app: demo\n');
    expect(out).toContain('type: Opaque\n');
  });

  it('keeps every other document byte for byte, comments and blank lines included', () => {
    expect(out.startsWith(CONFIGMAP)).toBe(true);
    expect(out.endsWith(DEPLOYMENT)).toBe(true);
  });

  it('returns a manifest without Secrets unchanged', () => {
    expect(redactSecrets(CONFIGMAP + DEPLOYMENT)).toBe(CONFIGMAP + DEPLOYMENT);
    expect(redactSecrets('')).toBe('');
    expect(redactSecrets('manifest v1')).toBe('manifest v1');
  });

  it('gives the same value the same digest in data and stringData, and a changed value another one', () => {
    const a = redactSecrets(secret({ data: { k: b64('v1') } }));
    const b = redactSecrets(secret({ stringData: { k: 'v1' } }));
    const c = redactSecrets(secret({ data: { k: b64('v2') } }));
    expect(a).toContain(`k: ${sha('v1')}`);
    expect(b).toContain(`k: ${sha('v1')}`);
    expect(c).toContain(`k: ${sha('v2')}`);
  });

  it('digests base64 split over lines as the API server decodes it, and text that is not base64 as text', () => {
    const folded = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k: |\n    ${b64('abcdefghijkl').slice(0, 8)}\n    ${b64('abcdefghijkl').slice(8)}\n`;
    expect(redactSecrets(folded)).toContain(`k: ${sha('abcdefghijkl')}`);
    expect(redactSecrets(secret({ data: { k: 'not base64!' } }))).toContain(`k: ${sha('not base64!')}`);
  });

  it('redacts Secrets in every document of a multi-document chunk and in a List', () => {
    const two = `${secret({ stringData: { a: 'first-value' } })}---\n${secret({ stringData: { b: 'second-value' } })}`;
    const list = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: in-list\n  stringData:\n    c: third-value\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n  data:\n    d: visible\n`;
    const typed = `apiVersion: v1\nkind: SecretList\nitems:\n- metadata:\n    name: typed\n  data:\n    e: ${b64('fourth-value')}\n`;
    const out = redactSecrets(`${two}---\n${list}---\n${typed}`);
    for (const v of ['first-value', 'second-value', 'third-value', 'fourth-value', b64('fourth-value')]) {
      expect(out).not.toContain(v);
    }
    expect(out).toContain(`a: ${sha('first-value')}`);
    expect(out).toContain(`b: ${sha('second-value')}`);
    expect(out).toContain(`c: ${sha('third-value')}`);
    expect(out).toContain(`e: ${sha('fourth-value')}`);
    expect(out).toContain('d: visible');
  });

  it('finds a Secret whose kind is spelled with an escape or an alias', () => {
    const escaped = `apiVersion: v1\nkind: "Secr\\x65t"\nmetadata:\n  name: s\nstringData:\n  k: hidden-value\n`;
    const aliased = `apiVersion: v1\nmetadata: {name: s, labels: {k: &k Secret}}\nkind: *k\nstringData: {k: other-value}\n`;
    expect(redactSecrets(escaped)).not.toContain('hidden-value');
    expect(redactSecrets(aliased)).not.toContain('other-value');
  });

  it('throws a ManifestParseError without the text for a Secret document that is not YAML', () => {
    expect(() => redactSecrets('kind: Secret\nstringData: {k: leaked-value\n')).toThrow(/not valid YAML/);
    try {
      redactSecrets('kind: Secret\nstringData: {k: leaked-value\n');
    } catch (err) {
      expect(String(err)).not.toContain('leaked-value');
      expect((err as { code?: string }).code).toBe('HELM_MANIFEST_INVALID');
    }
  });
});

describe('statusRelease', () => {
  it('redacted (the default): the manifest with Secret values as digests, name and revision', () => {
    const dr = statusRelease(release(MANIFEST));
    expect(dr).toEqual({ name: 'demo', revision: 3, manifest: redactSecrets(MANIFEST) });
    for (const v of VALUES) expect(JSON.stringify(dr)).not.toContain(v);
  });

  it("full: operator-sdk's manifest as rendered", () => {
    expect(statusRelease(release(MANIFEST), 'full')).toEqual({ name: 'demo', revision: 3, manifest: MANIFEST });
  });

  it('none: name and revision, no manifest field', () => {
    expect(statusRelease(release(MANIFEST), 'none')).toEqual({ name: 'demo', revision: 3 });
  });

  it('hides values read from Secrets (values-from) wherever they appear, in full and redacted mode', () => {
    const text = 'kind: ConfigMap\ndata:\n  dsn: postgres://app:pw-1234@db\n  pin: "0042"\n';
    for (const mode of ['full', 'redacted'] as const) {
      const dr = statusRelease(release(text), mode, STATUS_MANIFEST_CAP, ['pw-1234', '0042']);
      expect(dr.manifest).toBe('kind: ConfigMap\ndata:\n  dsn: postgres://app:<redacted>@db\n  pin: "<redacted>"\n');
    }
  });

  it('stores the manifest up to the cap and a marker above it, in every mode that stores one', () => {
    const big = `${CONFIGMAP}${'# filler\n'.repeat(STATUS_MANIFEST_CAP / 9)}`;
    expect(storedBytes(big)).toBeGreaterThan(STATUS_MANIFEST_CAP);
    for (const mode of ['full', 'redacted'] as const) {
      const m = statusRelease(release(big, 7), mode).manifest ?? '';
      expect(isManifestMarker(m)).toBe(true);
      expect(m.startsWith(MARKER_PREFIX)).toBe(true);
      expect(m).toContain('sh.helm.release.v1.demo.v7');
      expect(m).toContain('revision 7');
      expect(m).toContain('namespace apps');
      expect(m).toContain(`digest: ${sha(big)}`);
      expect(m).toContain(`over the ${STATUS_MANIFEST_CAP}-byte cap`);
      expect(m.length).toBeLessThan(1024);
    }
    expect(statusRelease(release(big), 'none')).toEqual({ name: 'demo', revision: 3 });
    expect(statusRelease(release(MANIFEST), 'full', storedBytes(MANIFEST)).manifest).toBe(MANIFEST);
    expect(isManifestMarker(statusRelease(release(MANIFEST), 'full', storedBytes(MANIFEST) - 1).manifest ?? '')).toBe(
      true,
    );
  });

  it('caps the manifest as the API server stores it: escapes count', () => {
    const amps = '&'.repeat(100);
    expect(amps.length).toBeLessThan(200);
    expect(isManifestMarker(statusRelease(release(amps), 'full', 200).manifest ?? '')).toBe(true);
  });

  it('the marker digests the whole manifest and shows no Secret value', () => {
    // The filler is part of the ConfigMap's document, which stays as rendered (a re-written Secret loses comments).
    const big = `${CONFIGMAP}${'# filler\n'.repeat(STATUS_MANIFEST_CAP / 9)}${SECRET}`;
    const m = statusRelease(release(big)).manifest ?? '';
    expect(m).toContain(sha(big));
    for (const v of VALUES) expect(m).not.toContain(v);
  });

  it('redacted: a Secret document that cannot be parsed gives the marker, never the text', () => {
    const broken = `${CONFIGMAP}---\nkind: Secret\nstringData: {k: leaked-value\n`;
    const m = statusRelease(release(broken)).manifest ?? '';
    expect(isManifestMarker(m)).toBe(true);
    expect(m).not.toContain('leaked-value');
    expect(m).toContain('not valid YAML');
    expect(statusRelease(release(broken), 'full').manifest).toBe(broken);
  });
});

describe('storedBytes', () => {
  it("counts a string as Go's encoding/json writes it, without the quotes", () => {
    expect(storedBytes('abc')).toBe(3);
    expect(storedBytes('a\nb"c\\')).toBe(9);
    expect(storedBytes('<>&')).toBe(18);
    expect(storedBytes('é')).toBe(2);
    expect(storedBytes('\u2028')).toBe(6);
    expect(storedBytes('\u0001')).toBe(6);
  });
});

describe('manifestToWaitFor', () => {
  const rel = (version: number, status: string, manifest: string) => ({
    release: releaseRecord({
      name: 'demo',
      version,
      info: { status } as Release['info'],
      chart: { name: 'demo', version: '0.1.0' },
      config: {},
      manifest,
    }),
  });
  const marker = statusRelease(release('x'.repeat(100)), 'full', 10).manifest;

  it("takes the deployed release's manifest from Helm's records, whatever the status holds", () => {
    const history = [rel(1, 'superseded', 'm1'), rel(2, 'deployed', 'm2'), rel(3, 'failed', 'm3')];
    expect(manifestToWaitFor(history, { name: 'demo', manifest: marker ?? '' })).toBe('m2');
    expect(manifestToWaitFor(history, { name: 'demo' })).toBe('m2');
  });

  it('takes the newest record when none is deployed', () => {
    expect(manifestToWaitFor([rel(1, 'failed', 'm1'), rel(2, 'failed', 'm2')], undefined)).toBe('m2');
  });

  it("falls back to the status's manifest only when the records are gone and it is a real manifest", () => {
    expect(manifestToWaitFor([], { name: 'demo', manifest: 'status manifest' })).toBe('status manifest');
    expect(manifestToWaitFor([], { name: 'demo', manifest: marker ?? '' })).toBeUndefined();
    expect(manifestToWaitFor([], { name: 'demo', revision: 2 })).toBeUndefined();
    expect(manifestToWaitFor([], { name: 'demo', manifest: '' })).toBeUndefined();
    expect(manifestToWaitFor([], undefined)).toBeUndefined();
  });
});

function secret(fields: { data?: Record<string, string>; stringData?: Record<string, string> }): string {
  let out = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n';
  for (const [field, values] of Object.entries(fields)) {
    out += `${field}:\n${Object.entries(values)
      .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`)
      .join('')}`;
  }
  return out;
}

describe('StatusReleaseMemo', () => {
  const secret = (v: string) => `---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  pw: ${v}\n`;

  it('builds the status release once per revision and again for a new one', () => {
    const memo = new StatusReleaseMemo('redacted');
    const first = memo.get('ns/web', { name: 'web', namespace: 'ns', version: 1, manifest: secret('one') });
    // Same revision: the stored answer, even for another text (a revision's manifest never changes).
    expect(memo.get('ns/web', { name: 'web', namespace: 'ns', version: 1, manifest: 'other' })).toBe(first);
    const second = memo.get('ns/web', { name: 'web', namespace: 'ns', version: 2, manifest: secret('two') });
    expect(second.revision).toBe(2);
    expect(second.manifest).not.toContain('two');
    memo.forget('ns/web');
    expect(memo.get('ns/web', { name: 'web', namespace: 'ns', version: 2, manifest: 'after' }).manifest).toBe('after');
  });

  it('builds it again for the same revision when the strings to hide changed, keeping no secret itself', () => {
    const memo = new StatusReleaseMemo('full');
    const rel = { name: 'web', namespace: 'ns', version: 1, manifest: 'token: tok-1 tok-2' };
    expect(memo.get('ns/web', rel, ['tok-1']).manifest).toBe('token: <redacted> tok-2');
    expect(memo.get('ns/web', rel, ['tok-1', 'tok-2']).manifest).toBe('token: <redacted> <redacted>');
  });

  it("answers the status's own copy once it shows the release computed, and computes again when it does not", () => {
    const memo = new StatusReleaseMemo('redacted');
    const rel = { name: 'web', namespace: 'ns', version: 1, manifest: secret('one') };
    const computed = memo.get('ns/web', rel);
    const shown = JSON.parse(JSON.stringify(computed)) as typeof computed; // as the informer decodes it
    expect(memo.get('ns/web', rel, [], shown)).toBe(shown);
    expect(memo.get('ns/web', rel, [], shown)).toBe(shown);
    // The status changed behind our back (or its write failed): the value is built again, equal to the first.
    const changed = { ...shown, manifest: 'edited' };
    const again = memo.get('ns/web', rel, [], changed);
    expect(again).not.toBe(changed);
    expect(again).toEqual(computed);
  });
});
