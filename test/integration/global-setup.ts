// Vitest global setup for the integration project: starts (or connects to) exactly one cluster per run and
// hands its kubeconfig, helm binaries and number of Ready nodes to the tests via `inject('cluster')`. Its teardown
// always runs, also when tests fail; a watchdog in hack/testenv/up.sh stops the local control plane if this runner
// is killed. The local plane has TESTENV_NODES (default 3) fake kwok Nodes; TESTENV_NODES=0 starts it without.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig, type V1Node, Watch } from '@kubernetes/client-node';
import type { TestProject } from 'vitest/node';
import {
  ClusterConfigError,
  type ClusterInfo,
  existingKubeconfig,
  localNodeCount,
  parseClusterMode,
  readyNodeCount,
} from '../support/cluster-config.js';
import { startLocalPlane } from '../support/plane.js';
import { run } from '../support/run.js';

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterInfo;
  }
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TESTENV = join(ROOT, 'hack/testenv.sh');

interface Started {
  readonly info: ClusterInfo;
  stop(): Promise<void>;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const mode = parseClusterMode(process.env.TEST_CLUSTER);
  const started = mode === 'local' ? await startLocal() : mode === 'existing' ? await useExisting() : await startK3s();
  project.provide('cluster', started.info);
  process.env.KUBECONFIG = started.info.kubeconfig;
  return () => started.stop();
}

function requireBinary(path: string, hint: string): string {
  if (!existsSync(path)) throw new ClusterConfigError(`${path} is missing: ${hint}`);
  return path;
}

async function startLocal(): Promise<Started> {
  const bin =
    process.env.TESTENV_BIN ??
    (await run('bash', [TESTENV, 'build'], { inheritStderr: true })).trim().split('\n').pop();
  if (!bin) throw new ClusterConfigError('hack/testenv.sh build printed no bin folder');
  const hint = 'run `hack/testenv.sh build` (needs Go >= 1.26), or use TEST_CLUSTER=existing';
  const wantNodes = localNodeCount(process.env.TESTENV_NODES);
  for (const b of ['etcd', 'kube-apiserver', 'kube-controller-manager']) requireBinary(join(bin, b), hint);
  const nodeHint = `${hint}; TESTENV_NODES=0 starts the plane without nodes, which needs neither`;
  if (wantNodes > 0) for (const b of ['kube-scheduler', 'kwok']) requireBinary(join(bin, b), nodeHint);
  const helms: Record<string, string> = { 'helm-v3': requireBinary(join(bin, 'helm-v3'), hint) };
  if (existsSync(join(bin, 'helm-v4'))) helms['helm-v4'] = join(bin, 'helm-v4');
  const plane = await startLocalPlane({
    root: ROOT,
    env: { ...process.env, TESTENV_BIN: bin },
    inheritStderr: true,
  });
  if (!plane.env.KUBECONFIG) throw new ClusterConfigError(`${plane.dir}/env has no KUBECONFIG`);
  // up.sh waited until that many Nodes were Ready before it wrote the env file.
  return {
    info: {
      mode: 'local',
      kubeconfig: plane.kubeconfig,
      helms,
      kubectl: join(bin, 'kubectl'),
      testenvBin: bin,
      nodes: plane.nodes,
    },
    stop: () => plane.stop(),
  };
}

async function helmFromEnv(): Promise<Record<string, string>> {
  const helm = process.env.HELM_BINARY ?? 'helm';
  try {
    await run(helm, ['version', '--short']);
  } catch (err) {
    throw new ClusterConfigError(
      `TEST_CLUSTER=${process.env.TEST_CLUSTER} needs a helm binary: set HELM_BINARY or put helm on PATH (${helm}: ${String(err)})`,
    );
  }
  return { helm };
}

/**
 * Ready, schedulable Nodes of the cluster in `kubeconfig`; with `waitMs`, watches the Nodes until one is Ready or the
 * deadline passes (a fresh k3s registers its Node a few seconds after the API answers).
 */
async function countReadyNodes(kubeconfig: string, waitMs = 0): Promise<number> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const list = await kc.makeApiClient(CoreV1Api).listNode();
  const ready = readyNodeCount(list.items);
  if (ready > 0 || waitMs <= 0) return ready;
  const nodes = new Map(list.items.map((n) => [n.metadata?.name ?? '', n]));
  return new Promise<number>((resolve, reject) => {
    let request: { abort(): void } | undefined;
    let done = false;
    const finish = (n: number) => {
      done = true;
      clearTimeout(deadline);
      request?.abort();
      resolve(n);
    };
    const deadline = setTimeout(() => finish(readyNodeCount([...nodes.values()])), waitMs);
    const path = '/api/v1/nodes';
    const opts = { resourceVersion: list.metadata?.resourceVersion ?? '' };
    new Watch(kc)
      .watch(
        path,
        opts,
        (type: string, node: V1Node) => {
          if (type === 'DELETED') nodes.delete(node.metadata?.name ?? '');
          else nodes.set(node.metadata?.name ?? '', node);
          const n = readyNodeCount([...nodes.values()]);
          if (n > 0) finish(n);
        },
        () => undefined, // ended: the deadline answers
      )
      .then((r) => {
        request = r;
        if (done) r.abort(); // answered before the watch was open
      }, reject);
  });
}

async function useExisting(): Promise<Started> {
  const kubeconfig = existingKubeconfig(process.env);
  const helms = await helmFromEnv();
  let nodes: number;
  try {
    nodes = await countReadyNodes(kubeconfig);
  } catch (err) {
    throw new ClusterConfigError(`TEST_CLUSTER=existing could not list the Nodes of ${kubeconfig}: ${String(err)}`);
  }
  return { info: { mode: 'existing', kubeconfig, helms, nodes }, stop: async () => {} };
}

async function startK3s(): Promise<Started> {
  const helms = await helmFromEnv();
  const { K3sContainer } = await import('@testcontainers/k3s');
  const image = process.env.K3S_IMAGE ?? 'rancher/k3s:v1.35.1-k3s1';
  let container: Awaited<ReturnType<InstanceType<typeof K3sContainer>['start']>>;
  try {
    container = await new K3sContainer(image).start();
  } catch (err) {
    throw new ClusterConfigError(
      `TEST_CLUSTER=k3s could not start ${image}; it needs a running Docker engine and the image: ${String(err)}`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'k3s-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, container.getKubeConfig(), { mode: 0o600 });
  // k3s's own kubelet registers its Node shortly after the API answers.
  let nodes: number;
  try {
    nodes = await countReadyNodes(kubeconfig, 60_000);
  } catch (err) {
    await container.stop();
    rmSync(dir, { recursive: true, force: true });
    throw new ClusterConfigError(`TEST_CLUSTER=k3s could not list the Nodes of ${image}: ${String(err)}`);
  }
  return {
    info: { mode: 'k3s', kubeconfig, helms, nodes },
    stop: async () => {
      await container.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
