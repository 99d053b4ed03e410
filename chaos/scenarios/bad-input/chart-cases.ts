// Bad-input cases about charts: the fixture charts of chaos/fixtures/bad-chart-* (broken ones, and one that declares
// a dependency it lacks, which installs without it as operator-sdk's does), each watched as its own kind, and a
// release name already taken by another chart (installed by helm directly). A table for index.ts; never changes a
// release it did not install, nor the canary.
import { join } from 'node:path';
import { run } from '../../../test/support/run.ts';
import { releaseRecords } from '../../kit/kube.ts';
import { seconds } from '../../kit/scenario.ts';
import { type BadCase, type CaseEnv, conditionCase, expectCondition, expectWithin, Missed } from './case.ts';
import { eventsOf, kindRef, NGINX, objects } from './kube.ts';

/** The kinds these cases watch, each with its fixture chart (folder under chaos/fixtures). */
export const CHART_KINDS: Readonly<Record<string, string>> = {
  BadTemplate: 'bad-chart-template',
  BadDependency: 'bad-chart-dependency',
  BadRequired: 'bad-chart-required',
  BadKubeVersion: 'bad-chart-kubeversion',
  BadMetadata: 'bad-chart-metadata',
};

const chartCase = (o: {
  name: string;
  kind: string;
  bar: string;
  short?: boolean;
  type: 'Irreconcilable' | 'ReleaseFailed';
  match: RegExp;
}): BadCase =>
  conditionCase({
    name: o.name,
    bar: o.bar,
    ...(o.short ? { short: true } : {}),
    kind: o.kind,
    ref: kindRef(o.kind),
    cr: `chart-${o.kind.toLowerCase()}`,
    spec: {},
    expect: { type: o.type, reason: o.type === 'Irreconcilable' ? 'ReconcileError' : 'InstallError', match: o.match },
  });

export function chartCases(): BadCase[] {
  return [
    chartCase({
      name: 'chart: a template that does not parse',
      kind: 'BadTemplate',
      bar: 'ReleaseFailed/InstallError (a first install, as operator-sdk), helm\'s "parse error at (file:line)"',
      short: true,
      type: 'ReleaseFailed',
      match: /parse error at \(bad-chart-template\/templates\/configmap\.yaml:\d+\)/,
    }),
    missingDependency(),
    chartCase({
      name: 'chart: a `required` value absent',
      kind: 'BadRequired',
      bar: "ReleaseFailed/InstallError (a first install, as operator-sdk), the chart's required message",
      type: 'ReleaseFailed',
      match: /bad-chart-required needs the value host/,
    }),
    chartCase({
      name: 'chart: kubeVersion not satisfied',
      kind: 'BadKubeVersion',
      bar: 'ReleaseFailed/InstallError "requires kubeVersion: >=99.0.0"',
      type: 'ReleaseFailed',
      match: /chart requires kubeVersion: >=99\.0\.0 which is incompatible with Kubernetes v\d/,
    }),
    chartCase({
      name: 'chart: Chart.yaml without a version',
      kind: 'BadMetadata',
      bar: 'ReleaseFailed/InstallError "chart.metadata.version is required"',
      type: 'ReleaseFailed',
      match: /chart\.metadata\.version is required/,
    }),
    releaseTaken(),
    releaseTakenDeleted(),
  ];
}

/**
 * A declared dependency that is not in charts/: operator-sdk's in-process helm installs the chart without it (helm's
 * CLI would refuse it), and so does the operator, with a DependencyDropped warning naming it.
 */
function missingDependency(): BadCase {
  const ref = kindRef('BadDependency');
  const cr = 'chart-baddependency';
  return {
    name: 'chart: a missing dependency',
    bar: 'Deployed/InstallSuccessful with its NOTES, as operator-sdk (the dependency dropped); a DependencyDropped warning naming it',
    kinds: ['BadDependency'],
    async run(e) {
      await objects(e.k, ref, e.ns).create(cr, {});
      const deployed = await expectCondition(e, ref, cr, {
        type: 'Deployed',
        reason: 'InstallSuccessful',
        match: /^chart-baddependency is installed without absent-subchart\.$/,
      });
      return expectWithin(e, 30_000, async () => {
        const ev = (await eventsOf(e.k, e.ns, cr)).find((x) => x.reason === 'DependencyDropped');
        const names = ev?.type === 'Warning' && ev.message.includes('"absent-subchart" 1.0.0');
        return names
          ? { ok: true, seen: `${deployed}; DependencyDropped names absent-subchart` }
          : { ok: false, seen: ev ? `event ${ev.type}/${ev.reason}: ${ev.message}` : 'no DependencyDropped event' };
      });
    },
  };
}

/** helm itself (not the operator) installs chaos/fixtures/bad-chart-other as `release` in the cases' namespace. */
async function helmInstallOther(e: CaseEnv, release: string): Promise<void> {
  const homes = join(e.ctx.work, 'helm-homes');
  await run(e.ctx.helm, ['install', release, join(e.fixtures, 'bad-chart-other'), '--namespace', e.ns], {
    env: {
      ...process.env,
      KUBECONFIG: e.ctx.plane.kubeconfig,
      HELM_CACHE_HOME: join(homes, 'cache'),
      HELM_CONFIG_HOME: join(homes, 'config'),
      HELM_DATA_HOME: join(homes, 'data'),
    },
    signal: e.ctx.signal,
  });
}

/** The release's records, and whether its ConfigMap (rendered by bad-chart-other) is still there. */
async function otherRelease(e: CaseEnv, release: string): Promise<string> {
  const records = (await releaseRecords(e.k, e.ns)).filter((r) => r.startsWith(`${release}:`));
  const cm = await e.k.core.readNamespacedConfigMap({ namespace: e.ns, name: `${release}-cm` }).catch(() => undefined);
  return `${records.join(',') || 'no record'}${cm ? ' with its ConfigMap' : ' without its ConfigMap'}`;
}

function releaseTaken(): BadCase {
  const release = 'taken';
  return {
    name: 'release name taken by another chart',
    bar: 'Irreconcilable "belongs to chart …"; that release untouched',
    short: true,
    async run(e) {
      await helmInstallOther(e, release);
      await objects(e.k, NGINX, e.ns).create(release, {});
      const seen = await expectCondition(e, NGINX, release, {
        type: 'Irreconcilable',
        reason: 'ReconcileError',
        match: /belongs to chart "bad-chart-other"(?=, not "nginx"; it is left untouched)/,
      });
      const other = await otherRelease(e, release);
      if (other !== `${release}:1:deployed with its ConfigMap`)
        throw new Missed(`${seen}; then the other release: ${other}`);
      return `${seen}; other release still rev 1`;
    },
  };
}

function releaseTakenDeleted(): BadCase {
  const release = 'taken-then-deleted';
  return {
    name: 'deleting a CR whose release is another chart’s',
    bar: 'CR deleted, ReleaseConflict event, that release left installed',
    async run(e) {
      await helmInstallOther(e, release);
      const crs = objects(e.k, NGINX, e.ns);
      await crs.create(release, {});
      await expectCondition(e, NGINX, release, {
        type: 'Irreconcilable',
        reason: 'ReconcileError',
        match: /belongs to chart "bad-chart-other"/,
      });
      await crs.delete(release);
      const t0 = performance.now();
      await expectWithin(e, 60_000, async () => {
        const cr = await crs.get(release);
        return { ok: cr === undefined, seen: `CR still there (finalizers ${cr?.metadata.finalizers})` };
      });
      const gone = seconds(performance.now() - t0);
      const conflict = (await eventsOf(e.k, e.ns, release)).find((x) => x.reason === 'ReleaseConflict');
      const other = await otherRelease(e, release);
      const ok = conflict !== undefined && other === `${release}:1:deployed with its ConfigMap`;
      const seen = `CR gone in ${gone}; ${conflict ? 'ReleaseConflict' : 'no ReleaseConflict event'}; release ${other}`;
      if (!ok) throw new Missed(seen);
      return seen;
    },
  };
}
