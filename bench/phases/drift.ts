// Phase 5 of the bench: drift repair. A bulk CR's Deployment is deleted, then scaled, BENCH_DRIFT times each; the
// time until the operator put it back, seen through a watch (not polling, which would load the API server it
// measures), and the operator's own time from its log. Called by operator-bench.ts once the CRs are settled.
import { setTimeout as sleep } from 'node:timers/promises';
import { type AppsV1Api, type KubeConfig, Watch } from '@kubernetes/client-node';
import { DRIFT, DRIFT_GAP_MS, NS, signal, TIMEOUT_MS } from '../kit.ts';
import type { Operator } from '../operator-process.ts';

/**
 * Deletes, then scales, a bulk CR's Deployment `samples` (DRIFT) times each; ms until the operator put it back.
 * `scaled: false` measures deletes only (an operator that never reverts a scale would time out).
 */
export async function measureDrift(
  kc: KubeConfig,
  apps: AppsV1Api,
  o: Pick<Operator, 'helmCalls' | 'stats'>,
  names: readonly string[],
  { samples: count = DRIFT, scaled: scale = true }: { readonly samples?: number; readonly scaled?: boolean } = {},
) {
  /** Resolves with the time the watch delivered the first event for `name` that satisfies `ok`. */
  const watchFor = async (
    name: string,
    ok: (type: string, d: { metadata?: { uid?: string }; spec?: { replicas?: number } }) => boolean,
  ) => {
    let stop: { abort(): void } | undefined;
    const seen = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${name}`)), TIMEOUT_MS);
      // client-node ends a watch silent for 30 s (its private requestTimeoutMs): an operator that takes longer to
      // put a Deployment back (one that only repairs on its periodic reconcile) must still be measured.
      const watch = new Watch(kc);
      (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = TIMEOUT_MS;
      void watch
        .watch(
          `/apis/apps/v1/namespaces/${NS}/deployments`,
          { fieldSelector: `metadata.name=${name}` },
          (type, obj) => {
            if (ok(type, obj as never)) {
              clearTimeout(timer);
              resolve(performance.now());
            }
          },
          (err) => {
            if (err) reject(err);
          },
        )
        .then((c) => {
          stop = c;
        }, reject);
    });
    // The watch is open once its request is sent; the initial ADDED event of the existing object says so.
    return { seen, close: () => stop?.abort() };
  };
  const helm0 = o.helmCalls().length;
  const deleted: number[] = [];
  const scaled: number[] = [];
  const deletedInOperator: number[] = [];
  const scaledInOperator: number[] = [];
  // From the operator's own log: the watch event that woke it, to its "Drift corrected" line (1 ms resolution);
  // read once the phase is over, when the log has caught up with every repair.
  const samples: [string, number, number[]][] = [];
  const inOperator = (object: string, since: number, into: number[]) => samples.push([object, since, into]);
  const fromLog = async () => {
    await sleep(500, undefined, { signal });
    for (const [object, since, into] of samples) {
      const event = o.stats.drift.event.get(object)?.find((t) => t >= since - 5);
      const done = event === undefined ? undefined : o.stats.drift.corrected.get(object)?.find((t) => t >= event);
      if (event !== undefined && done !== undefined) into.push(done - event);
    }
  };
  for (let i = 0; i < count; i++) {
    const name = `${names[i % names.length]}-nginx`;
    if (DRIFT_GAP_MS > 0) await sleep(DRIFT_GAP_MS, undefined, { signal });
    const before = await apps.readNamespacedDeployment({ name, namespace: NS });
    let ready!: () => void;
    const opened = new Promise<void>((r) => {
      ready = r;
    });
    const w = await watchFor(name, (type, d) => {
      if (d.metadata?.uid === before.metadata?.uid) ready();
      return type === 'ADDED' && d.metadata?.uid !== before.metadata?.uid;
    });
    await opened;
    const t0 = performance.now();
    const wall0 = Date.now();
    await apps.deleteNamespacedDeployment({ name, namespace: NS });
    deleted.push((await w.seen) - t0);
    w.close();
    inOperator(`${NS}/${name}`, wall0, deletedInOperator);
  }
  for (let i = 0; i < (scale ? count : 0); i++) {
    const name = `${names[i % names.length]}-nginx`;
    if (DRIFT_GAP_MS > 0) await sleep(DRIFT_GAP_MS, undefined, { signal });
    const d = await apps.readNamespacedDeployment({ name, namespace: NS });
    const want = d.spec?.replicas ?? 1;
    let ready!: () => void;
    const opened = new Promise<void>((r) => {
      ready = r;
    });
    let changed = false;
    const w = await watchFor(name, (_type, now) => {
      if (now.spec?.replicas === want + 3) changed = true;
      else if (!changed) ready();
      return changed && now.spec?.replicas === want;
    });
    await opened;
    const t0 = performance.now();
    const wall0 = Date.now();
    await apps.replaceNamespacedDeployment({
      name,
      namespace: NS,
      body: {
        ...d,
        spec: { ...d.spec, selector: d.spec?.selector ?? {}, template: d.spec?.template ?? {}, replicas: want + 3 },
      },
    });
    scaled.push((await w.seen) - t0);
    w.close();
    inOperator(`${NS}/${name}`, wall0, scaledInOperator);
  }
  await fromLog();
  return { deleted, scaled, deletedInOperator, scaledInOperator, helm: o.helmCalls().length - helm0 };
}
