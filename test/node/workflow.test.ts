// The users' workflow end to end on a real node, driven as the README tells users to drive it: the CLI packed and
// installed into a prefix; `init` + `create api` on a chart whose images are all local; `make docker-build` (podman)
// and the image loaded into the node's containerd; `make deploy IMG=…`; the operator pod Ready (probes answered by
// the kubelet, `kubectl logs` showing its start); `kubectl apply -k config/samples` with the operand pods really
// running; a spec change upgrading the release with its post-upgrade hook Job run as a real pod; with two replicas,
// the leader pod deleted and a change made at once, applied by the other; the leader pod deleted while helm waits for
// a slow hook, and no release left pending once the new pod converged; `make undeploy` removing the CRs first (each
// release uninstalled, each finalizer released) and then everything else. A test overlay mounts the manager's
// API credentials from a Secret the test writes, holding a token bound to another Secret (`kubectl create token
// --bound-object-kind=Secret`): replacing the token and deleting its anchor revokes the first one at once (the API
// server refuses it), and the operator keeps working, with no restart, on the token the kubelet put in its place.
// (The projected token's shortest lifetime is 600 s; waiting for its expiry cost 10 minutes.) Skips, with the
// reason, where the machine cannot run a node. Run by `make node-test`; prints the time of each step.
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { machineFlags } from '../support/container.js';
import { ROOT, runCleanups } from '../support/operator.js';
import { NODE_BIN, NPM, run } from '../support/run.js';

const node = inject('realNode');
const POLL = { timeout: 180_000, interval: 1_000 } as const;
const rand = () => Math.random().toString(36).slice(2, 8);
const OPERAND_IMAGE = 'docker.io/library/debian:bookworm-slim';
/** The sample `create api` writes for the chart `workload`: kind Workload, named `workload-sample`. */
const CR = 'workload-sample';
const figures: [string, string][] = [];
/** The Secret the manager's API credentials are mounted from (token, ca.crt, namespace), written by issueToken. */
const TOKEN_SECRET = 'manager-api-token';
/**
 * A test overlay (config/default's patch, as kubebuilder's): the manager's credentials from TOKEN_SECRET instead of
 * the kubelet's projected token, so that the test can replace the token and revoke the old one.
 */
const REVOCABLE_TOKEN_PATCH = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
  namespace: system
spec:
  template:
    spec:
      automountServiceAccountToken: false
      containers:
      - name: manager
        volumeMounts:
        - name: api-token
          mountPath: /var/run/secrets/kubernetes.io/serviceaccount
          readOnly: true
      volumes:
      - name: api-token
        secret: {secretName: ${TOKEN_SECRET}}
`;

describe.skipIf(node.skip !== undefined)(`the workflow on a real node ${node.skip ?? ''}`, { timeout: 900_000 }, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  const work = mkdtempSync(join(tmpdir(), 'node-workflow-'));
  const prefix = join(work, 'prefix');
  const project = join(work, 'proj');
  const name = `nw${rand()}`;
  const domain = `${name}.example.com`;
  const group = `charts.${domain}`;
  const img = `localhost/${name}:v0.1.0`;
  const ns = `${name}-samples`;
  const system = `${name}-system`;
  const env = {
    ...process.env,
    PATH: `${join(prefix, 'bin')}:${NODE_BIN}:${dirname(node.kubectl)}:${dirname(node.helm)}:${process.env.PATH}`,
    KUBECONFIG: node.kubeconfig,
    HELM_BINARY: node.helm,
  };
  const sh = (cmd: string, args: string[]) => run(cmd, args, { cwd: project, env });
  const kubectl = (...args: string[]) => sh(node.kubectl, args);
  const make = (...args: string[]) => sh('make', ['--no-print-directory', `KUBECTL=${node.kubectl}`, ...args]);
  const timed = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const out = await step();
    figures.push([what, `${((performance.now() - t0) / 1000).toFixed(1)} s`]);
    return out;
  };
  const json = async <T>(...args: string[]) => JSON.parse(await kubectl(...args, '-o', 'json')) as T;
  const cr = () =>
    json<{ status?: { conditions?: { type: string; status: string }[] } }>('get', `workloads.${group}`, CR, '-n', ns);

  /**
   * A token for the manager's ServiceAccount bound to a fresh Secret `anchor` (deleting it revokes the token), written
   * with the namespace's CA into TOKEN_SECRET (through stdin: never in argv). Returns the token.
   */
  const issueToken = async (anchor: string) => {
    await kubectl('create', 'secret', 'generic', anchor, '-n', system, '--from-literal=anchor=1');
    const sa = `${name}-controller-manager`;
    const token = (
      await kubectl('create', 'token', sa, '-n', system, '--bound-object-kind=Secret', `--bound-object-name=${anchor}`)
    ).trim();
    let ca = '';
    await vi.waitFor(async () => {
      ca = (await json<{ data: Record<string, string> }>('get', 'configmap', 'kube-root-ca.crt', '-n', system)).data[
        'ca.crt'
      ] as string;
      expect(ca).toMatch(/BEGIN CERTIFICATE/);
    }, POLL);
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: TOKEN_SECRET, namespace: system } };
    await run(node.kubectl, ['apply', '-f', '-'], {
      cwd: project,
      env,
      input: JSON.stringify({ ...body, stringData: { token, 'ca.crt': ca, namespace: system } }),
    });
    return token;
  };

  beforeAll(async () => {
    cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
    const tgz = join(work, (await run(NPM, ['pack', '--pack-destination', work, '--silent'], { cwd: ROOT })).trim());
    await run(NPM, ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tgz], { env });
    mkdirSync(project);
    await sh('helm-operator', [
      'init',
      '--plugins=helm',
      `--domain=${domain}`,
      `--project-name=${name}`,
      `--helm-chart=${join(ROOT, 'test/fixtures/charts/node-workload')}`,
    ]);
    figures.push(['node start-up (first process to Ready, hack/testenv/node-up.sh)', `${node.nodeStartupMs} ms`]);
    writeFileSync(join(project, 'config/default/token_patch.yaml'), REVOCABLE_TOKEN_PATCH);
    appendFileSync(join(project, 'config/default/kustomization.yaml'), 'patches:\n- path: token_patch.yaml\n');
    const flags = ['--network=host', ...(await machineFlags())].join(' ');
    await timed('make docker-build (podman)', () =>
      make(
        'docker-build',
        'CONTAINER_TOOL=podman',
        `IMG=${img}`,
        `HELM_OPERATOR_PACKAGE=${tgz}`,
        `CONTAINER_BUILD_FLAGS=${flags}`,
      ),
    );
    cleanups.push(() => run('podman', ['rmi', '--force', img]).catch(() => undefined));
    await timed('load the operator and operand images into the node', async () => {
      for (const i of [img, OPERAND_IMAGE])
        await run('bash', [join(ROOT, 'hack/testenv.sh'), 'load-image', i, node.dir]);
    });
  });

  afterAll(async () => {
    // Whatever a failed step left: undeploy once more (it is idempotent), then the files and the image.
    await make('undeploy', 'UNDEPLOY_TIMEOUT=2m').catch(() => undefined);
    await kubectl('delete', 'namespace', ns, '--ignore-not-found', '--wait=false').catch(() => undefined);
    await runCleanups(cleanups);
    process.stderr.write(
      `\n| step on the real node | time |\n|---|---|\n${figures.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}\n`,
    );
  });

  it('runs the operator as a pod: Ready through its probes, its start in kubectl logs', async () => {
    await timed('make deploy to operator pod Ready', async () => {
      await make('deploy', `IMG=${img}`);
      await issueToken('token-anchor-1');
      await kubectl('rollout', 'status', `deployment/${name}-controller-manager`, '-n', system, '--timeout=180s');
    });
    const logs = await kubectl('logs', `deployment/${name}-controller-manager`, '-n', system);
    expect(logs).toMatch(/Serving health probes/);
    expect(logs).toMatch(/Starting helm-operator/);
    expect(logs).toMatch(/Starting workers/);
    const pods = await json<{ items: { status: { containerStatuses: { ready: boolean; restartCount: number }[] } }[] }>(
      'get',
      'pods',
      '-n',
      system,
      '-l',
      'control-plane=controller-manager',
    );
    expect(pods.items.map((p) => p.status.containerStatuses[0]?.ready)).toEqual([true]);
  });

  it('deploys each sample with its operand pods really running', async () => {
    await kubectl('create', 'namespace', ns);
    await timed('kubectl apply -k config/samples to Deployed and Ready', async () => {
      await kubectl('apply', '-k', 'config/samples', '-n', ns);
      await vi.waitFor(async () => {
        const conditions = (await cr()).status?.conditions ?? [];
        expect(conditions.find((c) => c.type === 'Deployed')?.status).toBe('True');
        expect(conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
      }, POLL);
    });
    const pods = await json<{
      items: { status: { phase: string; containerStatuses: { ready: boolean; started: boolean }[] } }[];
    }>('get', 'pods', '-n', ns, '-l', `app=${CR}-workload`);
    expect(pods.items.map((p) => [p.status.phase, p.status.containerStatuses[0]?.started])).toEqual([
      ['Running', true],
    ]);
    // A real container: it answers exec.
    expect(
      (await kubectl('exec', '-n', ns, `deployment/${CR}-workload`, '--', 'cat', '/etc/debian_version')).trim(),
    ).toMatch(/^12\./);
  });

  it('upgrades on a spec change, its post-upgrade hook Job running as a real pod', async () => {
    await timed('spec change to the hook Job done and the new value applied', async () => {
      await kubectl(
        'patch',
        `workloads.${group}`,
        CR,
        '-n',
        ns,
        '--type=merge',
        '-p',
        '{"spec":{"message":"v2","replicaCount":2}}',
      );
      await vi.waitFor(async () => {
        const job = await json<{ status?: { succeeded?: number } }>('get', 'job', `${CR}-upgraded`, '-n', ns);
        expect(job.status?.succeeded).toBe(1);
        const cm = await json<{ data: { message: string } }>('get', 'configmap', `${CR}-workload`, '-n', ns);
        expect(cm.data.message).toBe('v2');
      }, POLL);
    });
    expect((await kubectl('logs', '-n', ns, `job/${CR}-upgraded`)).trim()).toBe('upgraded to v2');
    await kubectl('rollout', 'status', `deployment/${CR}-workload`, '-n', ns, '--timeout=120s');
  });

  /** The operator pod holding the leader Lease (its identity is `<hostname>_<uuid>`, the hostname its pod's name). */
  const leaderPod = async () => {
    const lease = await json<{ spec?: { holderIdentity?: string } }>('get', 'lease', name, '-n', system);
    const holder = lease.spec?.holderIdentity ?? '';
    return holder.slice(0, holder.lastIndexOf('_'));
  };
  const operatorPods = async () =>
    (
      await json<{ items: { metadata: { name: string }; status: { containerStatuses?: { ready: boolean }[] } }[] }>(
        'get',
        'pods',
        '-n',
        system,
        '-l',
        'control-plane=controller-manager',
      )
    ).items.map((p) => ({ name: p.metadata.name, ready: p.status.containerStatuses?.[0]?.ready === true }));
  const message = async () =>
    (await json<{ data: { message: string } }>('get', 'configmap', `${CR}-workload`, '-n', ns)).data.message;
  /** The release's records as `<revision>:<status>`, oldest first. */
  const releases = async () =>
    (
      await json<{ items: { metadata: { labels: Record<string, string> } }[] }>(
        'get',
        'secret',
        '-n',
        ns,
        '-l',
        `owner=helm,name=${CR}`,
      )
    ).items
      .map((s) => s.metadata.labels)
      .sort((a, b) => Number(a.version) - Number(b.version))
      .map((l) => `${l.version}:${l.status}`);

  it('with two replicas, lets the other take over when the leader pod is deleted, and applies a change made at once', async () => {
    await kubectl('scale', `deployment/${name}-controller-manager`, '-n', system, '--replicas=2');
    await vi.waitFor(async () => expect((await operatorPods()).filter((p) => p.ready)).toHaveLength(2), POLL);
    const leader = await leaderPod();
    expect((await operatorPods()).map((p) => p.name)).toContain(leader);
    await timed('leader pod deleted to a change made at once applied by the other replica', async () => {
      await kubectl('delete', 'pod', leader, '-n', system, '--wait=false');
      await kubectl('patch', `workloads.${group}`, CR, '-n', ns, '--type=merge', '-p', '{"spec":{"message":"v3"}}');
      await vi.waitFor(async () => expect(await message()).toBe('v3'), POLL);
    });
    expect(await leaderPod()).not.toBe(leader);
  });

  it('leaves no release pending when the leader pod is deleted while helm waits for a slow hook', async () => {
    await kubectl(
      'patch',
      `workloads.${group}`,
      CR,
      '-n',
      ns,
      '--type=merge',
      '-p',
      '{"spec":{"message":"v4","hookSeconds":20}}',
    );
    // helm is in the upgrade: its record says pending-upgrade while the hook Job sleeps.
    await vi.waitFor(
      async () => expect((await releases()).some((r) => r.endsWith(':pending-upgrade'))).toBe(true),
      POLL,
    );
    const leader = await leaderPod();
    await timed('leader deleted mid-upgrade to the release deployed again, nothing pending', async () => {
      await kubectl('delete', 'pod', leader, '-n', system, '--wait=false');
      await vi.waitFor(
        async () => {
          expect(await message()).toBe('v4');
          const conditions = (await cr()).status?.conditions ?? [];
          expect(conditions.find((c) => c.type === 'Deployed')?.status).toBe('True');
          const records = await releases();
          expect(records.filter((r) => r.includes(':pending-'))).toEqual([]);
          expect(records.at(-1)).toMatch(/:deployed$/);
        },
        { timeout: 300_000, interval: 1_000 },
      );
    });
  });

  it('keeps working, with no restart, once its token is replaced and the first one revoked', async () => {
    const pod = await leaderPod();
    const tokenOf = async () =>
      (
        await kubectl('exec', '-n', system, pod, '--', 'cat', '/var/run/secrets/kubernetes.io/serviceaccount/token')
      ).trim();
    const first = await tokenOf();
    /** A kubeconfig file (mode 0600, never argv) that presents `token` to the API server. */
    const withToken = (token: string) => {
      const file = join(work, `token-${rand()}.kubeconfig`);
      const server = /server:\s*(\S+)/.exec(readFileSync(node.kubeconfig, 'utf8'))?.[1] ?? '';
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'c', cluster: { server, 'insecure-skip-tls-verify': true } }],
          users: [{ name: 'u', user: { token } }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'x',
        }),
        { mode: 0o600 },
      );
      return file;
    };
    const whoami = (token: string) => run(node.kubectl, ['--kubeconfig', withToken(token), 'auth', 'whoami']);
    await expect(whoami(first)).resolves.toMatch(new RegExp(`system:serviceaccount:${system}:`));
    const second = await timed('a new token written to its Secret to the kubelet putting it in the pod', async () => {
      const token = await issueToken('token-anchor-2');
      await vi.waitFor(async () => expect(await tokenOf()).toBe(token), { timeout: 180_000, interval: 2_000 });
      return token;
    });
    expect(second).not.toBe(first);
    // The first token's anchor deleted: the API server refuses the first token from now on.
    await kubectl('delete', 'secret', 'token-anchor-1', '-n', system);
    await vi.waitFor(async () => expect(whoami(first)).rejects.toThrow(/Unauthorized|must be logged in/), POLL);
    expect(await leaderPod()).toBe(pod);
    await timed('a change after the first token was revoked applied', async () => {
      await kubectl(
        'patch',
        `workloads.${group}`,
        CR,
        '-n',
        ns,
        '--type=merge',
        '-p',
        '{"spec":{"message":"v5","hookSeconds":0}}',
      );
      await vi.waitFor(async () => expect(await message()).toBe('v5'), POLL);
    });
    const restarts = await json<{ status: { containerStatuses: { restartCount: number }[] } }>(
      'get',
      'pod',
      pod,
      '-n',
      system,
    );
    expect(restarts.status.containerStatuses[0]?.restartCount).toBe(0);
  });

  it('undeploys: the CRs first, each release uninstalled, then everything else, and nothing dangles', async () => {
    await timed('make undeploy', () => make('undeploy', 'UNDEPLOY_TIMEOUT=3m'));
    // undeploy returns once everything is deleted; the namespace controller then empties the operator's namespace.
    await vi.waitFor(async () => {
      expect(await kubectl('get', 'namespace', system, '--ignore-not-found', '-o', 'name')).toBe('');
    }, POLL);
    expect(await kubectl('get', 'crd', `workloads.${group}`, '--ignore-not-found', '-o', 'name')).toBe('');
    expect(await kubectl('get', 'pods', '-A', '-o', 'name', '-l', `app=${CR}-workload`)).toBe('');
    // The release's objects and records are gone: the CR was deleted while its operator still ran.
    for (const kind of ['deployment', 'configmap', 'secret']) {
      const left = await kubectl('get', kind, '-n', ns, '-o', 'name');
      expect(left.split('\n').filter((l) => new RegExp(`${CR}-workload|sh\\.helm\\.release`).test(l))).toEqual([]);
    }
    expect(readdirSync(project)).toContain('Makefile');
  });
});
