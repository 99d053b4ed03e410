// The operator's image run for real as a container (podman), against the local control plane: read-only root, uid
// 65532, a tmpfs on /tmp, the kubeconfig mounted read-only, the entrypoint unchanged. Run by `make image-test`
// (hack/image-test.sh builds the image first and passes its tag); writes its measured figures to IMAGE_TEST_REPORT.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { boundAddress } from '../support/addresses.js';
import {
  type Container,
  imageUnderTest,
  podShape,
  reportFigures,
  runOnce,
  startContainer,
} from '../support/container.js';
import { createTestNamespace, isGone, type TestKube, testKube } from '../support/kube.js';
import { crClient, ROOT } from '../support/operator.js';
import { run } from '../support/run.js';

const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const DOCKERFILE = read('Dockerfile');
const arg = (name: string) => new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(DOCKERFILE)?.[1];
const IMAGE_UID = Number(/^USER (\d+):\d+\s*$/m.exec(DOCKERFILE)?.[1]);
const POLL = { timeout: 90_000, interval: 250 } as const;
const GRACE_SECONDS = 30;
const KIND = { group: 'demo.example.com', version: 'v1alpha1', kind: 'Nginx', plural: 'nginxes' };
const figures: Record<string, string | number> = {};

describe('the operator image, run as a container', () => {
  const cluster = inject('cluster');
  const u = imageUnderTest();
  let kube: TestKube;
  let ns: string;
  let deleteNs: (() => Promise<void>) | undefined;
  let work: string;
  const started: Container[] = [];

  /** The pod's shape: read-only root with only /tmp writable, the image's uid, no capabilities, host network. */
  const start = async () => {
    const c = await startContainer(
      u,
      podShape({ uid: IMAGE_UID, kubeconfig: join(work, 'kubeconfig'), namespace: ns }),
      ['--health-probe-bind-address=127.0.0.1:0', '--metrics-bind-address=127.0.0.1:0'],
    );
    started.push(c);
    return c;
  };
  const readyz = async (c: Container) => {
    const addr = boundAddress(await c.logs(), 'Serving health probes');
    if (!addr) throw new Error('the operator has not logged its health probe address yet');
    const res = await fetch(`http://${addr}/readyz`);
    if (res.status !== 200) throw new Error(`/readyz answered ${res.status}`);
  };
  const pendingReleases = async () =>
    (await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: 'owner=helm' })).items
      .map((s) => `${s.metadata?.labels?.name}:${s.metadata?.labels?.status}`)
      .filter((r) => r.includes(':pending'));

  beforeAll(async () => {
    kube = testKube();
    const crd = loadYaml<V1CustomResourceDefinition>(read('config/crd/bases/demo.example.com_nginxes.yaml'));
    await kube.apiext.createCustomResourceDefinition({ body: crd }).catch((e: unknown) => {
      if (!(e instanceof Error && 'code' in e && e.code === 409)) throw e;
    });
    await vi.waitFor(async () => {
      const c = await kube.apiext.readCustomResourceDefinition({ name: 'nginxes.demo.example.com' });
      if (!c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')) {
        throw new Error('the sample CRD is not Established yet');
      }
    }, POLL);
    [ns, deleteNs] = await createTestNamespace(kube, 'image');
    // The kubeconfig, readable by the image's uid (the plane's own copy is root's, mode 0600).
    work = mkdtempSync(join(tmpdir(), 'image-test-'));
    chmodSync(work, 0o755);
    copyFileSync(cluster.kubeconfig, join(work, 'kubeconfig'));
    chmodSync(join(work, 'kubeconfig'), 0o644);
  });

  afterAll(async () => {
    for (const c of started) await c.remove();
    await deleteNs?.();
    if (work) rmSync(work, { recursive: true, force: true });
    reportFigures(figures);
  });

  it("ships the Dockerfile's helm, built for the test plane's Kubernetes version, and no npm or corepack", async () => {
    const version = await runOnce(u, ['--entrypoint', 'helm'], ['version', '--template', '{{.Version}}']);
    expect(version.trim()).toBe(arg('HELM_VERSION'));
    // The Kubernetes version ldflags: `helm template` (no cluster) reports the stamped version, not helm's v1.20.
    const chart = join(work, 'kube-version');
    mkdirSync(join(chart, 'templates'), { recursive: true });
    writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: kube-version\nversion: 0.1.0\n');
    writeFileSync(join(chart, 'templates/cm.yaml'), 'kubeVersion: {{ .Capabilities.KubeVersion.Version }}\n');
    const rendered = await runOnce(
      u,
      ['--entrypoint', 'helm', '--read-only', '--tmpfs', '/tmp:rw,mode=1777', '-v', `${chart}:/chart:ro`],
      ['template', 'x', '/chart'],
    );
    expect(rendered).toContain(`kubeVersion: v${arg('HELM_K8S_MAJOR')}.${arg('HELM_K8S_MINOR')}.0`);
    // One helm, node alone (no npm, npx, corepack or yarn), the operator on PATH.
    const tools = await runOnce(
      u,
      ['--entrypoint', 'bash', '--user', '0'], // root, to search every folder
      [
        '-c',
        'ls /usr/local/bin; find / -xdev \\( -type f -name helm -o -name npm -o -name npx -o -name corepack -o -name yarn \\) -print',
      ],
    );
    const [bin, found] = [tools.split('\n').filter(Boolean), tools];
    expect(bin.slice(0, 3)).toEqual(['helm', 'helm-operator', 'node']);
    expect(found.split('\n').filter((l) => l.startsWith('/'))).toEqual(['/usr/local/bin/helm']);
  });

  it('serves /readyz as uid 65532 on a read-only root, and deploys, upgrades and uninstalls the sample', async () => {
    const t0 = performance.now();
    const c = await start();
    await vi.waitFor(() => readyz(c), POLL);
    figures['start to /readyz 200 (ms)'] = Math.round(performance.now() - t0);

    // uid 65532 (real, effective, saved, fs); `--user 65532` names no group, so podman gives gid 0 (as OpenShift's
    // arbitrary uids have); a read-only root that refuses a write.
    const status = await c.exec(['cat', '/proc/1/status']);
    expect(/^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/)).toEqual(Array(4).fill(String(IMAGE_UID)));
    figures['operator process uid / gid'] = `${IMAGE_UID} / ${/^Gid:\s+(\d+)/m.exec(status)?.[1]}`;
    expect(await c.inspect('{{.HostConfig.ReadonlyRootfs}}')).toBe('true');
    await expect(c.exec(['touch', '/opt/helm/written'])).rejects.toThrow(/Read-only file system/);

    const sample = parseAllDocuments(read('config/samples/demo_v1alpha1_nginx.yaml'))[0]?.toJS() as {
      metadata: { name: string };
      spec: { replicaCount: number };
    };
    const name = sample.metadata.name;
    const crs = crClient(kube, KIND, ns);
    const deployment = () => kube.apps.readNamespacedDeployment({ name: `${name}-nginx`, namespace: ns });
    const t1 = performance.now();
    await crs.create(name, sample.spec);
    await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, POLL).toBe('True');
    figures['sample CR create to Deployed (ms)'] = Math.round(performance.now() - t1);
    expect((await deployment()).spec?.replicas).toBe(sample.spec.replicaCount);

    await crs.setSpec(name, { ...sample.spec, replicaCount: 3 });
    await expect.poll(async () => (await deployment()).spec?.replicas, POLL).toBe(3);
    await expect.poll(async () => (await crs.get(name)).status?.deployedRelease?.revision, POLL).toBe(2);

    await crs.delete(name);
    await expect.poll(() => isGone(() => crs.get(name)), POLL).toBe(true);
    await expect.poll(() => isGone(deployment), POLL).toBe(true);
    const records = await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: `owner=helm,name=${name}` });
    expect(records.items).toEqual([]);

    // Every write went to the /tmp tmpfs: the container's own layer holds only the kubeconfig's mount point, which
    // podman made before it started, and /tmp holds the operator's work dir.
    expect((await run(u.tool, ['diff', c.id])).trim().split('\n')).toEqual([
      'C /etc',
      'A /etc/helm-operator',
      'A /etc/helm-operator/kubeconfig',
    ]);
    expect(await c.exec(['ls', '-A', '/tmp'])).toMatch(/^helm-operator-/m);
  });

  it('stops on SIGTERM within the grace period, with no release left pending, and the next one converges', async () => {
    const c = started[0] ?? (await start());
    await vi.waitFor(() => readyz(c), POLL);
    const crs = crClient(kube, KIND, ns);
    const names = ['stop-a', 'stop-b', 'stop-c', 'stop-d', 'stop-e', 'stop-f'];
    await Promise.all(names.map((n) => crs.create(n, { replicaCount: 1 })));
    // SIGTERM while helm runs: the container's process table (no ps in the image: /proc) shows a helm process.
    const helmRunning = async () =>
      (
        await c.exec(['bash', '-c', 'for f in /proc/[0-9]*/comm; do read -r n <"$f" && echo "$n"; done 2>/dev/null'])
      ).split('\n');
    await expect.poll(helmRunning, { timeout: 30_000, interval: 20 }).toContain('helm');
    const t0 = performance.now();
    await c.stop(GRACE_SECONDS);
    const stopMs = Math.round(performance.now() - t0);
    figures['SIGTERM to exit, mid-install (ms)'] = stopMs;
    expect(stopMs).toBeLessThan(GRACE_SECONDS * 1000);
    expect(await c.inspect('{{.State.ExitCode}}'), (await c.logs()).slice(-3000)).toBe('0');
    expect(await c.logs()).toContain('Stopping: waiting for running helm processes');
    expect(await pendingReleases()).toEqual([]);

    const next = await start();
    await vi.waitFor(() => readyz(next), POLL);
    for (const n of names) {
      await expect.poll(async () => (await crs.condition(n, 'Deployed'))?.status, POLL).toBe('True');
    }
    for (const n of names) await crs.delete(n);
    for (const n of names) await expect.poll(() => isGone(() => crs.get(n)), POLL).toBe(true);
    expect(await pendingReleases()).toEqual([]);
    await next.stop(GRACE_SECONDS);
    expect(await next.inspect('{{.State.ExitCode}}')).toBe('0');
  });

  it('is what `make deploy IMG=<tag>` renders, and config/default passes a server-side dry run', async () => {
    const kubectl = cluster.kubectl ?? 'kubectl';
    const env = { ...process.env, KUBECONFIG: cluster.kubeconfig, KUBECTL: kubectl };
    const rendered = await run(join(ROOT, 'hack/deploy.sh'), ['render', u.image], { env, cwd: ROOT });
    const objs = parseAllDocuments(rendered).map((d) => d.toJS() as DeployObject);
    const pod = objs.find((o) => o.kind === 'Deployment')?.spec?.template.spec;
    const container = pod?.containers[0];
    expect(container?.image).toBe(u.image);
    // The securityContext the container above ran under: non-root (the image's numeric USER), read-only root,
    // no privilege escalation, every capability dropped, the runtime's default seccomp profile.
    expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container?.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(await run(u.tool, ['image', 'inspect', '--format', '{{.Config.User}}', u.image])).toMatch(
      new RegExp(`^${IMAGE_UID}:${IMAGE_UID}\\s*$`),
    );
    const nsDoc = parseAllDocuments(rendered).find((d) => (d.toJS() as DeployObject).kind === 'Namespace');
    const dryRun = (input: string, extra: string[]) =>
      run('bash', ['-c', `printf '%s' "$INPUT" | "$KUBECTL" apply --server-side ${extra.join(' ')} -f -`], {
        env: { ...env, INPUT: input },
      });
    // A server-side dry run of namespaced objects needs their namespace: create it for real, delete it after.
    await dryRun(String(nsDoc), []);
    try {
      const out = await dryRun(rendered, ['--dry-run=server']);
      expect(out).toContain('deployment.apps/nginx-operator-controller-manager serverside-applied (server dry run)');
    } finally {
      await run(kubectl, ['delete', 'namespace', 'nginx-operator-system', '--wait=false'], { env });
    }
  });
});

interface DeployObject {
  kind: string;
  spec?: {
    template: {
      spec: {
        securityContext?: unknown;
        containers: { image: string; securityContext?: unknown }[];
      };
    };
  };
}
