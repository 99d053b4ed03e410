// The bench's plane, made ready for an operator: a local control plane (no fake nodes unless TESTENV_NODES asks), the
// sample CRD established, the bench namespace, the CRD's first write done and kube-apiserver quiet; and the operators
// started on it as the bench starts them. Called by operator-bench.ts (once) and bench/scale.ts (once per point of
// its grid); stops only the plane it started, and only when its own set-up fails or its caller asks.
import { isAbsolute, join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig, VersionApi } from '@kubernetes/client-node';
import { type LocalPlane, startLocalPlane } from '../test/support/plane.ts';
import type { CrWatch } from './cr-watch.ts';
import { type Fleet, startFleet } from './fleet.ts';
import { env, GVR, lastLine, log, NS, noteOperatorExit, PERIOD, ROOT, run, signal } from './kit.ts';
import type { BenchContext } from './phases/context.ts';
import { apiserverPid, quiet } from './proc.ts';

export interface BenchPlane {
  readonly plane: LocalPlane;
  readonly kc: KubeConfig;
  readonly custom: CustomObjectsApi;
  /** kube-apiserver's PID, for its CPU and RSS. */
  readonly apiserver: number;
  /** The helm binary (BENCH_HELM), as chosen and as a path, and what `helm version --short` says. */
  readonly helm: string;
  readonly helmChoice: string;
  readonly helmVersion: string;
  readonly kubeVersion: string;
  /** The CRs' collection path in the bench namespace (for watchCRs). */
  readonly path: string;
  /** Runs the plane's kubectl; resolves with its stdout. */
  kubectl(...args: string[]): Promise<string>;
}

/** Starts the plane and makes it ready; on a failure on the way, stops it again before throwing. */
export async function startBenchPlane(): Promise<BenchPlane> {
  log('starting the control plane (hack/testenv.sh up)');
  // No fake nodes unless asked (TESTENV_NODES): pods would add the plane's own work to every figure, and the
  // published figures and the Go operator's were measured without them.
  const plane = await startLocalPlane({ root: ROOT, env: { ...env, TESTENV_NODES: env.TESTENV_NODES ?? '0' } });
  try {
    signal.throwIfAborted();
    const { dir, bin, kubeconfig } = plane;
    const helmChoice = env.BENCH_HELM || 'helm-v3';
    const helm = isAbsolute(helmChoice) ? helmChoice : join(bin, helmChoice);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const helmVersion = lastLine(await run(helm, ['version', '--short']));
    const kubeVersion = (await kc.makeApiClient(VersionApi).getCode()).gitVersion;
    const apiserver = apiserverPid(dir);
    const kubectl = (...args: string[]) => run(join(bin, 'kubectl'), args, { KUBECONFIG: kubeconfig });
    await kubectl('apply', '-f', 'config/crd/bases/');
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd/nginxes.demo.example.com');
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
    // kube-apiserver answers the first write of a CRD established seconds ago about 2 s late (kubectl -v=6 shows
    // the POST itself taking ~2000 ms, ~5 ms once the CRD is ~10 s old): one throwaway CR, before any operator runs,
    // so that the first CR measured is the operator's cold start and not the API server's.
    await warmCrd(custom);
    // The plane's own start-up work (OpenAPI documents rebuilt for the new CRD) must not land on the first CRs.
    const busy = await quiet(apiserver);
    log(`kube-apiserver quiet (${Math.round(busy * 100)} % of a core over 1 s) before the operator starts`);
    const path = `/apis/${GVR.group}/${GVR.version}/namespaces/${NS}/${GVR.plural}`;
    return { plane, kc, custom, apiserver, helm, helmChoice, helmVersion, kubeVersion, path, kubectl };
  } catch (err) {
    await plane.stop().catch((e: unknown) => log(`testenv down failed: ${String(e)}`));
    throw err;
  }
}

/** `replicas` operators on the plane (sharded when more than one, bench/fleet.ts), each with its own folder in `work`. */
export function startBenchFleet(
  p: BenchPlane,
  o: { readonly replicas: number; readonly work: string; readonly maxConcurrent: string },
): Fleet {
  return startFleet(o.replicas, {
    namespace: NS,
    root: ROOT,
    helm: p.helm,
    work: o.work,
    kubeconfig: p.plane.kubeconfig,
    watch: { group: GVR.group, version: GVR.version, kind: 'Nginx', chart: 'charts/nginx' },
    reconcilePeriod: PERIOD,
    maxConcurrent: o.maxConcurrent,
    env,
    logFile: env.BENCH_LOG,
    onExit: noteOperatorExit,
  });
}

/** What the phases work with (bench/phases/context.ts), for this plane, these operators and these CRs. */
export function benchContext(p: BenchPlane, o: Fleet, bulkCrs: CrWatch, names: readonly string[]): BenchContext {
  const { dir, bin, kubeconfig } = p.plane;
  const profileApiserver = async (seconds: number, file: string) => {
    const url = `/debug/pprof/profile?seconds=${seconds}`;
    await run('bash', ['-c', 'exec "$0" get --raw "$1" >"$2"', join(bin, 'kubectl'), url, file], {
      KUBECONFIG: kubeconfig,
    });
  };
  const scrape = () => p.kubectl('get', '--raw', '/metrics');
  const { kc, custom, apiserver } = p;
  return { o, kc, custom, apiserver, dir, bulkCrs, names, scrape, profileApiserver };
}

/** Creates and deletes one CR (no operator runs yet, so nothing holds it): the API server's first write of the CRD. */
async function warmCrd(custom: CustomObjectsApi): Promise<void> {
  const t0 = performance.now();
  const body = { apiVersion: `${GVR.group}/${GVR.version}`, kind: 'Nginx', metadata: { name: 'warm-up' } };
  await custom.createNamespacedCustomObject({ ...GVR, namespace: NS, body });
  await custom.deleteNamespacedCustomObject({ ...GVR, namespace: NS, name: 'warm-up' });
  log(`the CRD's first write (before the operator starts): ${Math.round(performance.now() - t0)} ms`);
}
