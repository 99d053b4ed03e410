// The node group's operator as users run it: this repository's image (`make docker-build`, podman) with the fixture
// chart and a watches.yaml layered on, loaded into the real node, and `hack/deploy.sh render` (config/default, as
// `make deploy`) under an overlay: 2 replicas with leader election, the Job and Pod rights the chart's hook needs,
// and optionally a memory limit. Called by index.ts and the cases; never touches images or objects it did not make.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../../test/support/run.ts';
import { until } from '../../../test/support/until.ts';
import type { Kube } from '../../kit/kube.ts';
import type { ScenarioContext } from '../../kit/scenario.ts';

export const OPERATOR_NS = 'nginx-operator-system';
export const DEPLOYMENT = 'nginx-operator-controller-manager';
export const LEASE = 'nginx-operator';
export const OPERAND_IMAGE = 'docker.io/library/debian:bookworm-slim';
const BASE_IMAGE = 'localhost/helm-operator-ts:chaos-node-base';
export const OPERATOR_IMAGE = 'localhost/helm-operator-ts:chaos-node';
const SELECTOR = 'control-plane=controller-manager';

/** The overlay's Job and Pod rights: the chart's hook is a Job, and helm waits on it. */
const EXTRA_RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: chaos-node-extra}
rules:
- apiGroups: [batch]
  resources: [jobs]
  verbs: [create, delete, get, list, patch, update, watch]
- apiGroups: [""]
  resources: [pods, pods/log]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: chaos-node-extra}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: chaos-node-extra}
subjects:
- {kind: ServiceAccount, name: nginx-operator-controller-manager, namespace: ${OPERATOR_NS}}
`;

/** Builds the operator image with the fixture chart and loads it and the operand's image into the node. */
export async function buildAndLoad(ctx: ScenarioContext): Promise<{ buildMs: number; loadMs: number }> {
  const flags = (await run('bash', [join(ctx.root, 'hack/container-flags.sh')])).trim().split(/\s+/).filter(Boolean);
  const t0 = performance.now();
  // The Dockerfile's base images: local stand-ins where no registry provides them (fast once they exist).
  await run('bash', [join(ctx.root, 'hack/base-images.sh')], { signal: ctx.signal });
  await run(
    'make',
    [
      '--no-print-directory',
      'docker-build',
      'CONTAINER_TOOL=podman',
      `IMG=${BASE_IMAGE}`,
      `CONTAINER_BUILD_FLAGS=${['--network=host', ...flags].join(' ')}`,
    ],
    { cwd: ctx.root, signal: ctx.signal },
  );
  const layer = join(ctx.work, 'image');
  mkdirSync(layer, { recursive: true });
  await run('cp', ['-r', join(ctx.root, 'chaos/fixtures/node-chart'), join(layer, 'node-chart')]);
  writeFileSync(
    join(layer, 'watches.yaml'),
    '- group: demo.example.com\n  version: v1alpha1\n  kind: Nginx\n  chart: charts/node-chart\n',
  );
  writeFileSync(
    join(layer, 'Containerfile'),
    `FROM ${BASE_IMAGE}\nCOPY watches.yaml /opt/helm/watches.yaml\nCOPY node-chart /opt/helm/charts/node-chart\n`,
  );
  await run('podman', ['build', ...flags, '-t', OPERATOR_IMAGE, layer], { signal: ctx.signal });
  const buildMs = performance.now() - t0;
  const t1 = performance.now();
  for (const img of [OPERATOR_IMAGE, OPERAND_IMAGE]) {
    await run('bash', [join(ctx.root, 'hack/testenv.sh'), 'load-image', img, ctx.plane.dir], { signal: ctx.signal });
  }
  return { buildMs, loadMs: performance.now() - t1 };
}

export interface DeployOptions {
  /** The manager container's memory limit (an overlay's patch); undefined: the scaffold's. */
  readonly memoryLimit?: string | undefined;
  readonly replicas: number;
}

/** Renders config/default with the image (`make deploy`'s hack/deploy.sh) under the overlay, and applies it. */
export async function deploy(ctx: ScenarioContext, k: Kube, o: DeployOptions): Promise<void> {
  const dir = join(ctx.work, `overlay-${o.memoryLimit ?? 'scaffold'}`);
  mkdirSync(dir, { recursive: true });
  const kubectl = join(ctx.plane.bin, 'kubectl');
  const rendered = await run('bash', [join(ctx.root, 'hack/deploy.sh'), 'render', OPERATOR_IMAGE], {
    env: { ...process.env, KUBECTL: kubectl },
  });
  writeFileSync(join(dir, 'rendered.yaml'), rendered);
  writeFileSync(join(dir, 'extra-rbac.yaml'), EXTRA_RBAC);
  const limit =
    o.memoryLimit === undefined
      ? ''
      : `        resources:\n          limits: {memory: ${o.memoryLimit}}\n          requests: {memory: ${o.memoryLimit}}\n`;
  writeFileSync(
    join(dir, 'manager-patch.yaml'),
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${DEPLOYMENT}, namespace: ${OPERATOR_NS}}\nspec:\n  replicas: ${o.replicas}\n  template:\n    spec:\n      containers:\n      - name: manager\n${limit}`,
  );
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    'resources:\n- rendered.yaml\n- extra-rbac.yaml\npatches:\n- path: manager-patch.yaml\n',
  );
  // A limit too low for new pods to become Ready: Recreate, or the rollout would keep the old pods and wait forever.
  // (A merge patch, since a Deployment refuses rollingUpdate beside Recreate; the scaffold's RollingUpdate after.)
  const exists = await k.apps
    .readNamespacedDeployment({ name: DEPLOYMENT, namespace: OPERATOR_NS })
    .catch(() => undefined);
  const strategy = o.memoryLimit === undefined ? { type: 'RollingUpdate' } : { type: 'Recreate', rollingUpdate: null };
  if (exists) {
    await k.kubectl([
      'patch',
      'deployment',
      DEPLOYMENT,
      '-n',
      OPERATOR_NS,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { strategy } }),
    ]);
  }
  await k.kubectl(['apply', '--server-side', '--force-conflicts', '-k', dir]);
}

export interface OperatorPod {
  readonly name: string;
  readonly ready: boolean;
  readonly restarts: number;
  /** The last termination's reason (OOMKilled, Error, …), or ''. */
  readonly lastTerminated: string;
  readonly phase: string;
  readonly deleting: boolean;
  readonly uid: string;
}

export async function operatorPods(k: Kube): Promise<OperatorPod[]> {
  const list = await k.core.listNamespacedPod({ namespace: OPERATOR_NS, labelSelector: SELECTOR });
  return list.items.map((p) => {
    const cs = p.status?.containerStatuses?.[0];
    return {
      name: p.metadata?.name ?? '',
      uid: p.metadata?.uid ?? '',
      ready: cs?.ready === true,
      restarts: cs?.restartCount ?? 0,
      lastTerminated: cs?.lastState?.terminated?.reason ?? '',
      phase: p.status?.phase ?? '',
      deleting: p.metadata?.deletionTimestamp !== undefined,
    };
  });
}

/** The Lease holder's pod (the identity is `<hostname>_<uuid>`; the hostname is the pod's name), or ''. */
export async function leaderPod(k: Kube): Promise<string> {
  const lease = await k.coordination
    .readNamespacedLease({ name: LEASE, namespace: OPERATOR_NS })
    .catch(() => undefined);
  const holder = lease?.spec?.holderIdentity ?? '';
  return holder.includes('_') ? holder.slice(0, holder.lastIndexOf('_')) : holder;
}

/** Waits until `n` operator pods run Ready (none terminating) and one of them holds the Lease. */
export async function operatorsReady(k: Kube, n: number, signal: AbortSignal, timeoutMs = 240_000): Promise<void> {
  await until(
    `${n} operator pods Ready and one holding the Lease`,
    async () => {
      const pods = (await operatorPods(k)).filter((p) => !p.deleting);
      const lead = await leaderPod(k);
      return pods.length === n && pods.every((p) => p.ready) && pods.some((p) => p.name === lead);
    },
    { timeoutMs, everyMs: 1_000, signal },
  );
}

/** The operator pod's logs (its current container, or the previous one's with `previous`). */
export async function podLogs(k: Kube, pod: string, previous = false): Promise<string> {
  return k
    .kubectl(['logs', '-n', OPERATOR_NS, pod, ...(previous ? ['--previous'] : [])])
    .catch((err: unknown) => String(err));
}
