// Vitest global setup of the `node` project (`make node-test`): the local control plane with one real node
// (`TESTENV_NODES=real hack/testenv.sh up`: kubelet, containerd, runc, CNI, kube-proxy), handed to the tests with its
// folder (for `hack/testenv.sh load-image`). Where this machine cannot run a node, hack/testenv/node-check.sh's exact
// reason is handed on instead and the tests skip with it. Its teardown always stops the plane.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startLocalPlane } from '../support/plane.js';
import { CommandFailedError, run } from '../support/run.js';

export interface RealNodePlane {
  /** Why the tests skip (the machine cannot run a node); undefined when the plane runs. */
  readonly skip?: string | undefined;
  readonly dir: string;
  readonly kubeconfig: string;
  readonly kubectl: string;
  readonly helm: string;
  /** How long the node took from its first process to Ready (hack/testenv/node-up.sh), in ms. */
  readonly nodeStartupMs: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    realNode: RealNodePlane;
  }
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const skipped = (skip: string) => ({ skip, dir: '', kubeconfig: '', kubectl: '', helm: '', nodeStartupMs: 0 });
  try {
    await run('bash', [join(ROOT, 'hack/testenv/node-check.sh')]);
  } catch (err) {
    const reason = err instanceof CommandFailedError ? err.stderr.trim() : String(err);
    project.provide('realNode', skipped(reason));
    return async () => {};
  }
  const plane = await startLocalPlane({
    root: ROOT,
    env: { ...process.env, TESTENV_NODES: 'real' },
    inheritStderr: true,
  });
  project.provide('realNode', {
    dir: plane.dir,
    kubeconfig: plane.kubeconfig,
    kubectl: join(plane.bin, 'kubectl'),
    helm: join(plane.bin, 'helm-v3'),
    nodeStartupMs: Number(plane.env.TESTENV_NODE_STARTUP_MS ?? '0'),
  });
  process.env.KUBECONFIG = plane.kubeconfig;
  return () => plane.stop();
}
