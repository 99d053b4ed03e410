// `helm-operator cleanup`: the escape hatch for custom resources whose operator is already gone (deleted before its
// CRs, operator-sdk#4383). For every CR of the watched kinds it uninstalls the release, deletes the CR and removes
// this operator's finalizers directly. Shows the plan first; `--dry-run` stops there; otherwise it asks (or --yes).
// Called by cmd/tools.ts (runCleanup). Never touches a release that belongs to another chart.
import type { Watch } from '../config/watches.js';
import { FINALIZER, LEGACY_FINALIZER } from '../finalizers/finalizers.js';
import type { HelmClient } from '../helm/types.js';
import { NotFoundError, unlessNotFound } from '../kube/errors.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { releaseState } from '../records/release-state.js';
import type { ReleaseReader } from '../records/types.js';

export interface CleanupOptions {
  readonly watches: readonly Pick<Watch, 'group' | 'version' | 'kind'>[];
  /** The chart name of each watch (same order): a release of another chart is left installed. */
  readonly chartNames: readonly string[];
  /** '' for all namespaces. */
  readonly namespace: string;
  readonly dryRun: boolean;
}

export interface CleanupDeps {
  readonly kube: Pick<KubeClient, 'list' | 'patch' | 'delete' | 'discover'>;
  readonly helm: Pick<HelmClient, 'uninstall'>;
  readonly releases: ReleaseReader;
  readonly say: (line: string) => void;
  /** Asks the user; false cancels. */
  readonly confirm: (question: string) => Promise<boolean>;
}

interface Item {
  readonly res: ApiResource;
  readonly cr: KubeObject;
  readonly chart: string;
  /** The release exists and belongs to the watch's chart. */
  uninstall: boolean;
  foreign?: string;
}

/** Returns the number of custom resources freed (0 for a dry run or a declined prompt). */
export async function cleanup(o: CleanupOptions, d: CleanupDeps, signal: AbortSignal): Promise<number> {
  const items: Item[] = [];
  for (const [i, w] of o.watches.entries()) {
    let res: ApiResource;
    try {
      res = await d.kube.discover(w, { signal });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      d.say(`${w.kind} (${w.group}/${w.version}) is not served: its CRD is gone, so are its custom resources`);
      continue;
    }
    const list = await d.kube.list(res, { namespace: o.namespace, signal });
    for (const cr of list.items) {
      const ns = cr.metadata.namespace ?? '';
      const name = cr.metadata.name ?? '';
      const chart = o.chartNames[i] ?? '';
      const named = releaseState({ history: await d.releases.history(ns, name, { signal }), chart });
      const owner = named.summary.latest?.chart.name;
      items.push({
        res,
        cr,
        chart,
        uninstall: named.state !== 'Absent' && named.state !== 'Unmanaged',
        ...(named.state === 'Unmanaged' && owner !== undefined ? { foreign: owner } : {}),
      });
    }
  }
  if (items.length === 0) {
    d.say('no custom resources of the watched kinds: nothing to clean up');
    return 0;
  }
  for (const it of items) d.say(`  ${describe(it)}`);
  const releases = items.filter((it) => it.uninstall).length;
  const question = `Uninstall ${releases} releases and delete ${items.length} custom resources, removing their finalizers?`;
  if (o.dryRun) {
    d.say(`dry run: ${question.replace(/\?$/, '')} — nothing done`);
    return 0;
  }
  if (!(await d.confirm(question))) {
    d.say('cancelled: nothing done');
    return 0;
  }
  for (const it of items) await free(it, d, signal);
  d.say(`freed ${items.length} custom resources`);
  return items.length;
}

function describe(it: Item): string {
  const m = it.cr.metadata;
  const what = `${it.cr.kind} ${m.namespace}/${m.name}`;
  const release = it.uninstall
    ? `uninstall release ${m.name}`
    : it.foreign
      ? `leave release ${m.name} (chart ${it.foreign}, not ${it.chart}) installed`
      : 'no release';
  const state = m.deletionTimestamp ? 'being deleted' : 'live';
  return `${what} (${state}): ${release}, delete it, remove finalizers`;
}

async function free(it: Item, d: CleanupDeps, signal: AbortSignal): Promise<void> {
  const ns = it.cr.metadata.namespace ?? '';
  const name = it.cr.metadata.name ?? '';
  if (!it.cr.metadata.deletionTimestamp) await unlessNotFound(d.kube.delete(it.res, ns, name, { signal }));
  if (it.uninstall) {
    await d.helm.uninstall({ release: name, namespace: ns, signal });
    d.say(`uninstalled release ${ns}/${name}`);
  }
  const ours = new Set([FINALIZER, LEGACY_FINALIZER]);
  const finalizers = (it.cr.metadata.finalizers ?? []).filter((f) => !ours.has(f));
  // JSON merge patch without a resourceVersion: whatever else changed meanwhile, our finalizers must go.
  const options = { signal, fieldManager: 'helm-operator-cleanup' };
  await unlessNotFound(d.kube.patch(it.res, ns, name, { metadata: { finalizers } }, 'merge', options));
  d.say(`removed the finalizers of ${it.cr.kind} ${ns}/${name}`);
}
