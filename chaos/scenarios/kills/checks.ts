// The end-state checks of the "kills" chaos scenario (also used by "leader"): live CRs Deployed at their generation
// with their spec applied, no pending-* release, nothing left of a deleted CR, and no helm process of this plane left.
// Used by index.ts and chaos/scenarios/leader/index.ts; only reads the cluster and /proc, never changes them.
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { type Cr, crs, deployedAtGeneration, type Kube, latestReleases, pendingRecords } from '../../kit/kube.ts';
import { expected } from './model.ts';

export interface Verdict {
  /** Live CRs not Deployed at their generation, or whose objects do not show their spec yet. */
  readonly notConverged: string[];
  /** Releases whose latest revision is pending-* (`name:revision:status`): what helm calls a pending release. */
  readonly pending: string[];
  /**
   * Older revisions still marked pending-*: a recovery rolls back past an interrupted revision and helm leaves that
   * record as it was (test/integration/operator/stuck.test.ts expects this). Reported, not counted as pending.
   */
  readonly stalePending: string[];
  /** Objects or releases of live CRs that are missing (`cr/what`). */
  readonly lost: string[];
  /** CRs, objects or release records left of deleted CRs (`cr/what`). */
  readonly orphaned: string[];
}

export const converged = (v: Verdict) =>
  v.notConverged.length + v.pending.length + v.lost.length + v.orphaned.length === 0;

export const brief = (items: readonly string[], max = 5) =>
  items.length === 0 ? '0' : `${items.length} (${items.slice(0, max).join(', ')}${items.length > max ? ', …' : ''})`;

/** One look at namespace `ns`: which of `live` have converged and what is left of `deleted`. */
export async function inspect(
  k: Kube,
  ns: string,
  live: ReadonlySet<string>,
  deleted: ReadonlySet<string>,
): Promise<Verdict> {
  const [list, deployments, services, configMaps, secrets] = await Promise.all([
    crs(k, ns).list(),
    k.apps.listNamespacedDeployment({ namespace: ns }),
    k.core.listNamespacedService({ namespace: ns }),
    k.core.listNamespacedConfigMap({ namespace: ns }),
    k.core.listNamespacedSecret({ namespace: ns, labelSelector: 'owner=helm' }),
  ]);
  const byName = new Map<string, Cr>(list.map((c) => [c.metadata.name, c]));
  const dep = new Map(deployments.items.map((d) => [d.metadata?.name ?? '', d]));
  const svc = new Map(services.items.map((s) => [s.metadata?.name ?? '', s]));
  const cm = new Map(configMaps.items.map((c) => [c.metadata?.name ?? '', c]));
  const records = secrets.items.map((s) => {
    const l = s.metadata?.labels ?? {};
    return `${l.name}:${l.version}:${l.status}`;
  });
  const releases = latestReleases(records);
  const v: Verdict = {
    notConverged: [],
    ...pendingRecords(records),
    lost: [],
    orphaned: [],
  };

  for (const name of live) {
    const cr = byName.get(name);
    if (!cr) {
      v.lost.push(`${name}/cr`);
      continue;
    }
    const want = expected(cr.spec);
    const obj = `${name}-nginx`;
    const d = dep.get(obj);
    const s = svc.get(obj);
    const c = cm.get(obj);
    if (!d) v.lost.push(`${name}/deployment`);
    if (!s) v.lost.push(`${name}/service`);
    if (!c) v.lost.push(`${name}/configmap`);
    const release = releases.get(name);
    if (!release) v.lost.push(`${name}/release`);
    const applied =
      release?.status === 'deployed' &&
      d?.spec?.replicas === want.replicas &&
      s?.spec?.ports?.[0]?.port === want.port &&
      c?.data?.['index.html'] === want.index;
    if (!deployedAtGeneration(cr) || !applied) v.notConverged.push(name);
  }

  for (const name of deleted) {
    const obj = `${name}-nginx`;
    if (byName.has(name)) v.orphaned.push(`${name}/cr`);
    if (dep.has(obj)) v.orphaned.push(`${name}/deployment`);
    if (svc.has(obj)) v.orphaned.push(`${name}/service`);
    if (cm.has(obj)) v.orphaned.push(`${name}/configmap`);
    for (const r of records) if (r.startsWith(`${name}:`)) v.orphaned.push(`${name}/release ${r}`);
  }
  return v;
}

const realpathOr = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * Live helm processes of this plane: their binary is `helm` (resolved) and their KUBECONFIG is `kubeconfig`, so that
 * helm run by other planes on the machine (the same binary) is not counted. Each with its process group.
 */
export function planeHelmProcesses(helm: string, kubeconfig: string): { pid: number; pgid: number }[] {
  const bin = realpathOr(helm);
  const out: { pid: number; pgid: number }[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const argv0 = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0')[0] ?? '';
      const exe = readlinkSync(`/proc/${d}/exe`);
      if (exe !== bin && realpathOr(argv0) !== bin) continue;
      const env = readFileSync(`/proc/${d}/environ`, 'utf8').split('\0');
      if (!env.includes(`KUBECONFIG=${kubeconfig}`)) continue;
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (f[0] === 'Z') continue;
      out.push({ pid: Number(d), pgid: Number(f[2]) });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}
