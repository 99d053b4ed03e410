// Decides which cluster and helm binaries the integration tests use, from the environment (pure; the global
// setup acts on the result). Never starts anything itself.
import { existsSync } from 'node:fs';

export type ClusterMode = 'local' | 'existing' | 'k3s';

/** What the global setup hands to every integration test through `inject('cluster')`. */
export interface ClusterInfo {
  readonly mode: ClusterMode;
  readonly kubeconfig: string;
  /** Helm binaries to test against, keyed by a label such as `helm-v3`. The first one is the default. */
  readonly helms: Readonly<Record<string, string>>;
  /** kubectl, when the run has one (always for the local control plane). */
  readonly kubectl?: string;
  /** The testenv bin folder (local mode only): lets tests start extra control planes. */
  readonly testenvBin?: string;
  /**
   * Ready, schedulable Nodes when the run started: on the local control plane the kwok Nodes (TESTENV_NODES,
   * default 3), elsewhere the cluster's own. 0 means no Pod will ever run; tests that need Pods skip, saying why.
   */
  readonly nodes: number;
}

/** The shape of a Node that readyNodeCount reads (a subset of the API's V1Node). */
export interface NodeLike {
  readonly spec?: { readonly unschedulable?: boolean };
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string }[] };
}

/** How many Nodes can run Pods: their Ready condition is True and they are not cordoned. */
export function readyNodeCount(nodes: readonly NodeLike[]): number {
  return nodes.filter(
    (n) => !n.spec?.unschedulable && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  ).length;
}

/**
 * TESTENV_NODES as hack/testenv/up.sh reads it: unset or empty means 3; otherwise a whole number from 0 to 250.
 * The global setup needs it before `up` to know which binaries the plane requires.
 */
export function localNodeCount(value: string | undefined): number {
  const v = (value ?? '').trim();
  if (v === '') return 3;
  if (!/^[0-9]+$/.test(v) || Number(v) > 250) {
    throw new ClusterConfigError(`TESTENV_NODES=${JSON.stringify(value)} is not a number of nodes from 0 to 250`);
  }
  return Number(v);
}

export class ClusterConfigError extends Error {
  override readonly name = 'ClusterConfigError';
  readonly code = 'TEST_CLUSTER_CONFIG';
}

export function parseClusterMode(value: string | undefined): ClusterMode {
  const v = (value ?? '').trim();
  if (v === '' || v === 'local') return 'local';
  if (v === 'existing' || v === 'k3s') return v;
  throw new ClusterConfigError(
    `TEST_CLUSTER=${JSON.stringify(value)} is not a cluster mode; use "local" (default: a control plane built ` +
      'from Go modules), "existing" (the cluster in KUBECONFIG) or "k3s" (@testcontainers/k3s, needs a Docker engine)',
  );
}

/** The kubeconfig for TEST_CLUSTER=existing: KUBECONFIG must name one readable file. */
export function existingKubeconfig(env: NodeJS.ProcessEnv, exists: (p: string) => boolean = existsSync): string {
  const kc = env.KUBECONFIG?.trim();
  if (!kc) {
    throw new ClusterConfigError('TEST_CLUSTER=existing needs KUBECONFIG to name the kubeconfig file of the cluster');
  }
  if (kc.includes(':')) {
    throw new ClusterConfigError(`TEST_CLUSTER=existing needs KUBECONFIG to name one file, not a list: ${kc}`);
  }
  if (!exists(kc)) throw new ClusterConfigError(`KUBECONFIG=${kc} does not exist`);
  return kc;
}
