// status.deployedRelease against the real control plane and helm, with the status-manifest test chart (`count`
// ConfigMaps of `size` bytes, plus a Secret with data and stringData): a release rendering over 1.5 MiB reaches
// Deployed with the capped marker (release Secret, revision, digest); by default no Secret value reaches the
// status and a small release shows digests instead; `--status-manifest=none` stores no manifest.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { releaseFromSecret } from '../../../src/helm/release.js';
import { MARKER_PREFIX } from '../../../src/reconciler/status/status-manifest.js';
import type { TestKube } from '../../support/kube.js';
import { crClient, ROOT, type TestKind, watchesYaml } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const CHART = join(ROOT, 'test/fixtures/charts/status-manifest');
/** etcd's default request limit (--max-request-bytes): the status that operator-sdk writes could never fit. */
const ETCD_LIMIT = 1.5 * 1024 * 1024;
const POLL = { timeout: 120_000, interval: 500 } as const;

const sha256 = (data: string | Buffer) => `sha256:${createHash('sha256').update(data).digest('hex')}`;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const suffix = Math.random().toString(36).slice(2, 10);
/** Values unique to this run, so that finding one in a status can only mean it leaked. */
const PASSWORD = `pw-${suffix}-data`;
const API_KEY = `key-${suffix}-string`;
const SECRET_VALUES = { data: { password: PASSWORD }, stringData: { apiKey: API_KEY } };
const LEAKS = [PASSWORD, b64(PASSWORD), API_KEY, b64(API_KEY)];

describe('status.deployedRelease (--status-manifest)', () => {
  let kube: TestKube;
  let ns: string;
  /** The operator with the default mode (redacted), and one with --status-manifest=none, each for its own kind. */
  let redacted: ReturnType<typeof crClient>;
  let none: ReturnType<typeof crClient>;

  const create = async (crs: ReturnType<typeof crClient>, name: string, spec: unknown) => {
    const kind = crs === redacted ? f.kinds[0] : f.kinds[1];
    if (kind !== undefined) f.track(kind, ns, name);
    await crs.create(name, spec);
  };
  const deployed = (crs: ReturnType<typeof crClient>, name: string) =>
    vi.waitFor(async () => {
      const cr = await crs.get(name);
      const condition = cr.status?.conditions?.find((c) => c.type === 'Deployed');
      expect(condition?.status).toBe('True');
      return cr;
    }, POLL);
  /** The manifest Helm recorded for a revision, from its release Secret. */
  const releaseManifest = async (release: string, revision: number) => {
    const secret = await kube.core.readNamespacedSecret({
      name: `sh.helm.release.v1.${release}.v${revision}`,
      namespace: ns,
    });
    return releaseFromSecret(secret).manifest;
  };

  // The CRs are deleted while the operators run (so the releases are uninstalled), then the operators stop.
  const f = useOperatorFixture({
    kinds: [
      { kind: 'StatusRedacted', chart: CHART },
      { kind: 'StatusNone', chart: CHART },
    ],
    namespaces: ['op-status'],
    start: false,
    poll: POLL,
  });
  beforeAll(() => {
    kube = f.kube;
    ns = f.ns;
    const [redactedKind, noneKind] = f.kinds as [TestKind, TestKind];
    redacted = crClient(kube, redactedKind, ns);
    none = crClient(kube, noneKind, ns);
    f.start({ watches: watchesYaml([{ ...redactedKind, chart: CHART }]) });
    f.start({ watches: watchesYaml([{ ...noneKind, chart: CHART }]), args: ['--status-manifest=none'] });
  });

  it('a release rendering over 1.5 MiB reaches Deployed with a capped status: marker, release Secret, revision, digest', async () => {
    const name = 'big';
    // Four ConfigMaps of 450 kB: each object is well under the API's limits, the manifest is ~1.8 MB.
    await create(redacted, name, { count: 4, size: 450_000, secret: SECRET_VALUES });
    const cr = await deployed(redacted, name);
    const manifest = await releaseManifest(name, 1);
    expect(manifest.length).toBeGreaterThan(ETCD_LIMIT);
    const dr = cr.status?.deployedRelease;
    expect(dr?.name).toBe(name);
    expect(dr?.revision).toBe(1);
    const marker = dr?.manifest ?? '';
    expect(marker.startsWith(MARKER_PREFIX)).toBe(true);
    expect(marker).toContain(`sh.helm.release.v1.${name}.v1`);
    expect(marker).toContain('revision 1');
    expect(marker).toContain(`digest: ${sha256(manifest)}`);
    expect(marker.length).toBeLessThan(1024);
    const status = JSON.stringify(cr.status);
    for (const leak of LEAKS) expect(status).not.toContain(leak);
    // The objects really are there: the chart was installed as rendered.
    const filler = await kube.core.readNamespacedConfigMap({ name: `${name}-filler-3`, namespace: ns });
    expect(filler.data?.filler).toHaveLength(450_000);
  });

  it('a small release (default mode, redacted): the manifest as rendered, with digests for Secret values', async () => {
    const name = 'small';
    await create(redacted, name, { count: 1, size: 32, secret: SECRET_VALUES });
    const cr = await deployed(redacted, name);
    const manifest = cr.status?.deployedRelease?.manifest ?? '';
    expect(cr.status?.deployedRelease).toMatchObject({ name, revision: 1 });
    expect(manifest).toContain(`password: ${sha256(PASSWORD)}`);
    expect(manifest).toContain(`apiKey: ${sha256(API_KEY)}`);
    const status = JSON.stringify(cr.status);
    for (const leak of LEAKS) expect(status).not.toContain(leak);
    // The ConfigMap's document is byte for byte what Helm recorded.
    const rendered = await releaseManifest(name, 1);
    const configMap = rendered.split(/^---$/m).find((doc) => doc.includes('kind: ConfigMap'));
    expect(configMap).toBeDefined();
    expect(manifest).toContain(configMap);
  });

  it('--status-manifest=none: deployedRelease keeps name and revision, and no manifest', async () => {
    const name = 'bare';
    await create(none, name, { count: 1, size: 32, secret: SECRET_VALUES });
    const cr = await deployed(none, name);
    expect(cr.status?.deployedRelease).toEqual({ name, revision: 1 });
    const status = JSON.stringify(cr.status);
    for (const leak of LEAKS) expect(status).not.toContain(leak);
  });
});
