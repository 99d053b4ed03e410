// What every phase of the bench works with: the operator (its log's figures), the CR API, the kubeconfig, the
// kube-apiserver's PID and the plane's folder, and the one watch on the bulk CRs. Types only; built by
// operator-bench.ts once the operator runs.
import type { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { Scrape } from '../api-requests.ts';
import type { CrWatch } from '../cr-watch.ts';
import type { Fleet } from '../fleet.ts';

export interface BenchContext {
  /** The operator (BENCH_REPLICAS of them, sharded, seen as one). */
  readonly o: Fleet;
  readonly kc: KubeConfig;
  readonly custom: CustomObjectsApi;
  /** kube-apiserver's PID, for its CPU and RSS. */
  readonly apiserver: number;
  /** The plane's folder (hack/testenv.sh). */
  readonly dir: string;
  /** One watch on the CRs labelled phase=bulk: every latency is read from its events. */
  readonly bulkCrs: CrWatch;
  /** kube-apiserver's /metrics (bench/api-requests.ts). */
  readonly scrape: Scrape;
  /** Writes a CPU profile of kube-apiserver over the next `seconds` to `file` (its /debug/pprof/profile). */
  readonly profileApiserver: (seconds: number, file: string) => Promise<void>;
  /** The bulk CRs' names. */
  readonly names: readonly string[];
}
