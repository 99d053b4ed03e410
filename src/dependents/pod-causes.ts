// Finds why a workload of a release is not ready from its pods, at a bounded cost: one LIST of pods by the workload's
// selector in its namespace (one page of at most 50), only while that workload is not ready, at most once per
// `minIntervalMs` per workload and generation; the answer (a pod and container name and a reason, never the pods) is
// kept in a bounded LRU. No pod informer. Called by port.ts. Never fails a reconcile: a LIST that is forbidden (a
// role without pods list) turns the lookup off for that namespace for a while, logged once; other errors are logged.
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import { remember, touch } from '../core/lru.js';
import { ForbiddenError } from '../kube/errors.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { type PodCause, podsCause, workloadSelector } from '../readiness/pods.js';

export const PODS: ApiResource = { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };

export interface PodCausesOptions {
  readonly kube: Pick<KubeClient, 'list'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A workload's pods are listed at most once in this window (per generation). @default 4_000 */
  readonly minIntervalMs?: number;
  /** After a 403, the namespace's lookups stay off this long. @default 600_000 */
  readonly forbiddenMs?: number;
  /** The page size of the LIST: only the first page is read. @default 50 */
  readonly limit?: number;
}

interface Answer {
  readonly at: number;
  readonly generation: string;
  readonly cause: PodCause | undefined;
}

/** Workloads whose last answer is kept. */
const MAX_ANSWERS = 2_000;

export class PodCauses {
  readonly #o: PodCausesOptions;
  readonly #answers = new Map<string, Answer>();
  /** Namespace → until when lookups there are off (a 403). */
  readonly #forbidden = new Map<string, number>();
  #warned = false;
  /** LIST requests sent, for tests and the closing figures. */
  lists = 0;

  constructor(options: PodCausesOptions) {
    this.#o = options;
  }

  /** Whether lookups in `namespace` may run now (false for a while after a 403). */
  enabled(namespace: string): boolean {
    const until = this.#forbidden.get(namespace);
    if (until === undefined) return true;
    if (this.#o.clock.now() < until) return false;
    this.#forbidden.delete(namespace);
    return true;
  }

  /**
   * The first waiting container with a cause among the pods of `workload` (a live Deployment, StatefulSet, DaemonSet
   * or Job that is not ready), or undefined. Rejects only when `signal` aborts.
   */
  async cause(workload: KubeObject, signal: AbortSignal, log: Logger): Promise<PodCause | undefined> {
    const namespace = workload.metadata.namespace ?? '';
    const selector = workloadSelector(workload);
    if (!namespace || selector === undefined || !this.enabled(namespace)) return undefined;
    const key = `${workload.kind}/${namespace}/${workload.metadata.name ?? ''}`;
    const generation = `${workload.metadata.uid ?? ''}/${workload.metadata.generation ?? ''}`;
    const now = this.#o.clock.now();
    const last = touch(this.#answers, key);
    if (last && last.generation === generation && now - last.at < (this.#o.minIntervalMs ?? 4_000)) return last.cause;
    let cause: PodCause | undefined;
    try {
      this.lists++;
      log.debug({ kind: workload.kind, namespace }, 'Listing the pods of a not-ready workload');
      const page = await this.#o.kube.list(PODS, {
        namespace,
        labelSelector: selector,
        limit: this.#o.limit ?? 50,
        signal,
      });
      cause = podsCause(page.items);
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof ForbiddenError) {
        this.#forbidden.set(namespace, now + (this.#o.forbiddenMs ?? 600_000));
        if (!this.#warned) {
          this.#warned = true;
          this.#o.logger.warn(
            { namespace, err: errFields(err) },
            'Cannot list pods: Ready will not name why a workload is not ready (grant pods get/list to the operator)',
          );
        }
      } else {
        log.info({ kind: workload.kind, err: errFields(err) }, 'Cannot list the pods of a workload');
      }
      return undefined;
    }
    remember(this.#answers, key, { at: now, generation, cause }, MAX_ANSWERS);
    return cause;
  }
}
