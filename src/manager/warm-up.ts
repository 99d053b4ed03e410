// Warms what a controller's first install needs, before its workers start: renders its chart once with the chart's
// defaults through the operator's own helm, against the cluster (`helm template --validate`: helm's discovery and
// the OpenAPI documents its check reads land in its caches, nothing is written), and starts the dependent informers
// of the kinds that render, reads the reconciles' shared inputs (the chart digest) beside it, and leaves idle API
// connections for the first reconcile's writes, so the first CR after a start costs what the tenth does. A source of
// watch.ts' controllers; bounded in time, and never fails the start (a chart that needs values only logs).
import type { Source } from '../controller/controller.js';
import { untilAborted } from '../core/abortable.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import { watchKinds } from '../dependents/port.js';
import type { Dependents } from '../dependents/watcher.js';
import { manifestObjects } from '../helm/manifest.js';
import type { TemplateParams } from '../helm/types.js';
import type { ApiResource, KubeClient } from '../kube/types.js';

/** The longest a controller's workers wait for its warm-up; the warm-up goes on in the background after it. */
export const WARM_UP_BOUND_MS = 10_000;
/**
 * The idle API connections the warm-up leaves: one reconcile writes its CR and posts its event at once. Every informer
 * LIST hands its connection to the WATCH that follows it, so without these the first CR pays two TLS handshakes.
 */
export const WARM_UP_CONNECTIONS = 2;
/** The release name the chart is rendered under (nothing is installed under it). */
export const WARM_UP_RELEASE = 'warm-up';

export interface WarmUpOptions {
  readonly chart: string;
  /** The folder to render `chart` from (HelmReconciler.chartForRender). @default `chart` itself */
  readonly chartPath?: ((signal: AbortSignal) => Promise<string>) | undefined;
  /** A namespace the controller watches (its CRs' releases go there); `default` when it watches all. */
  readonly namespace: string;
  /** The post-renderer's arguments for a placeholder CR (warmUpOwner): helm runs it, as for an install. */
  readonly postRenderArgs?: readonly string[] | undefined;
  /** The operator's helm `template` (its environment: caches, kubeconfig, rate limit, post-renderer). */
  readonly render: (p: TemplateParams) => Promise<string>;
  readonly kube: Pick<KubeClient, 'discover' | 'serverVersion'>;
  /** Absent when the watch has watchDependentResources: false. */
  readonly watcher?: Pick<Dependents, 'ensure' | 'waitForSync'> | undefined;
  readonly logger: Logger;
  /** @default WARM_UP_BOUND_MS */
  readonly boundMs?: number;
  /** What the reconciles share, read once before the first (HelmReconciler.prepare). @default nothing */
  readonly prepare?: ((signal: AbortSignal) => Promise<void>) | undefined;
}

/** The CR the warm-up's post-render pass names as the owner (nothing is applied, so nothing is owned). */
export function warmUpOwner(watch: { group: string; version: string; kind: string }, namespace: string) {
  const apiVersion = watch.group ? `${watch.group}/${watch.version}` : watch.version;
  return { apiVersion, kind: watch.kind, metadata: { name: WARM_UP_RELEASE, namespace, uid: WARM_UP_UID } };
}

const WARM_UP_UID = '00000000-0000-0000-0000-000000000000';

/** A controller source that is synced once the warm-up is done, failed, or past its bound. */
export function warmUp(o: WarmUpOptions): Source {
  let synced = false;
  let done: Promise<void> | undefined;
  /** Renders the chart and lists its kinds' informers; how many kinds, or undefined when it did not render. */
  const renderAndWatch = async (signal: AbortSignal): Promise<number | undefined> => {
    try {
      const manifest = await o.render({
        chart: o.chartPath ? await o.chartPath(signal) : o.chart,
        release: WARM_UP_RELEASE,
        namespace: o.namespace,
        validate: true,
        ...(o.postRenderArgs ? { postRenderArgs: o.postRenderArgs } : {}),
        signal,
      });
      // helm template prints hooks too; a release's manifest (what is watched) has none.
      const objects = manifestObjects(manifest).filter((obj) => !isHook(obj));
      const known = new Map<string, ApiResource>();
      if (o.watcher) await watchKinds(o.kube, o.watcher, known, objects, signal, o.logger);
      const resources = [...known.values()];
      await o.watcher?.waitForSync(resources, o.boundMs ?? WARM_UP_BOUND_MS, signal);
      return resources.length;
    } catch (err) {
      if (signal.aborted) return undefined;
      o.logger.info(
        { chart: o.chart, err: errFields(err) },
        'Warm-up skipped: the chart did not render with its defaults',
      );
      return undefined;
    }
  };
  const run = async (signal: AbortSignal) => {
    const started = performance.now();
    // Beside the render (files, not a process); a failure is the first reconcile's to meet.
    const prepared = o.prepare?.(signal).catch(() => undefined);
    const kinds = await renderAndWatch(signal);
    await prepared;
    if (signal.aborted) return;
    const connections = await idleConnections(o.kube, WARM_UP_CONNECTIONS, signal);
    const ms = Math.round(performance.now() - started);
    if (kinds !== undefined) o.logger.info({ chart: o.chart, kinds, connections, ms }, 'Warmed up');
  };
  return {
    start(signal) {
      done ??= run(signal).finally(() => {
        synced = true;
      });
      return done;
    },
    async waitForSync(signal) {
      // Past the bound the workers start; the warm-up goes on beside them. Only the operator's own abort rejects.
      const bound = AbortSignal.any([signal, AbortSignal.timeout(o.boundMs ?? WARM_UP_BOUND_MS)]);
      await untilAborted(done ?? Promise.resolve(), bound).catch(() => signal.throwIfAborted());
      synced = true;
    },
    hasSynced: () => synced,
  };
}

/**
 * Opens `n` connections at once with the cheapest request there is (GET /version, readable by every identity) and
 * leaves them idle in the client's keep-alive pool. Returns how many answered; a failure is the first write's to meet.
 */
async function idleConnections(kube: Pick<KubeClient, 'serverVersion'>, n: number, signal: AbortSignal) {
  const answers = await Promise.allSettled(Array.from({ length: n }, () => kube.serverVersion({ signal })));
  return answers.filter((a) => a.status === 'fulfilled').length;
}

function isHook(obj: Record<string, unknown>): boolean {
  const metadata = obj.metadata as { annotations?: Record<string, unknown> } | undefined;
  return metadata?.annotations?.['helm.sh/hook'] !== undefined;
}
