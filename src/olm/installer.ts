// `helm-operator olm install | status | uninstall`, as operator-sdk's internal/olm/installer: install creates OLM's
// CRDs, then (once established) the rest of its manifests, and waits for its operators to roll out and the
// packageserver CSV to succeed; status reads every object of the manifests and its health; uninstall deletes them
// all, each waited for until gone. Called by cmd/olm.ts; everything it waits for has the one --timeout deadline.
import type { Clock } from '../core/clock.js';
import { OperatorError } from '../core/errors.js';
import { NotFoundError } from '../kube/errors.js';
import { parseApiVersion } from '../kube/paths.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { loadOlmManifests, type ManifestReaders, type OlmManifests, sameVersion } from './manifests.js';
import { allHealthy, anyInstalled, type ObjectStatus, unhealthy } from './status.js';

export class OlmAlreadyInstalledError extends OperatorError {
  readonly code = 'OLM_ALREADY_INSTALLED';
}
export class OlmNotInstalledError extends OperatorError {
  readonly code = 'OLM_NOT_INSTALLED';
}
export class OlmVersionError extends OperatorError {
  readonly code = 'OLM_VERSION_MISMATCH';
}
export class OlmTimeoutError extends OperatorError {
  readonly code = 'OLM_TIMEOUT';
}
export class OlmFailedError extends OperatorError {
  readonly code = 'OLM_FAILED';
}

export interface OlmDeps {
  readonly kube: Pick<KubeClient, 'get' | 'list' | 'create' | 'delete' | 'discover'>;
  readonly clock: Clock;
  readonly readers: ManifestReaders;
  /** One line of progress (operator-sdk logs them; here stderr). */
  readonly say: (line: string) => void;
}

export interface OlmOptions {
  /** `''` for status and uninstall: the installed version, found from the packageserver CSV. */
  readonly version: string;
  readonly timeoutMs: number;
  /** A folder or base URL with crds.yaml and olm.yaml; undefined: OLM's release download. */
  readonly manifests?: string | undefined;
  /** Where OLM runs (status, uninstall: where its packageserver CSV is looked for). @default 'olm' */
  readonly namespace?: string;
  /** @default 1_000 */
  readonly pollMs?: number;
}

const where = (o: KubeObject) =>
  o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
const gvkOf = (o: KubeObject) => ({ ...parseApiVersion(o.apiVersion), kind: o.kind });
const CSV = { group: 'operators.coreos.com', version: 'v1alpha1', kind: 'ClusterServiceVersion' } as const;

/** A waiting loop with the command's one deadline. */
export function waiter(o: Pick<OlmOptions, 'timeoutMs' | 'pollMs'>, d: Pick<OlmDeps, 'clock'>, signal: AbortSignal) {
  const deadline = d.clock.now() + o.timeoutMs;
  return async (what: string, check: () => Promise<string | undefined>): Promise<void> => {
    for (;;) {
      const waiting = await check();
      if (waiting === undefined) return;
      if (d.clock.now() >= deadline) {
        throw new OlmTimeoutError(
          `timed out after ${Math.round(o.timeoutMs / 1000)} s waiting for ${what}: ${waiting}`,
        );
      }
      await d.clock.sleep(o.pollMs ?? 1_000, signal);
    }
  };
}

async function resourceOf(d: OlmDeps, obj: KubeObject, signal: AbortSignal): Promise<ApiResource | undefined> {
  return d.kube.discover(gvkOf(obj), { signal }).catch((err: unknown) => {
    if (err instanceof NotFoundError) return undefined; // its kind is not served (its CRD is not there)
    throw err;
  });
}

async function liveOf(d: OlmDeps, obj: KubeObject, signal: AbortSignal): Promise<KubeObject | undefined> {
  const res = await resourceOf(d, obj, signal);
  if (res === undefined) return undefined;
  return d.kube
    .get(res, res.namespaced ? (obj.metadata.namespace ?? '') : '', obj.metadata.name ?? '', { signal })
    .catch((err: unknown) => {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    });
}

/** Each object of the manifests as the cluster has it. */
export async function readStatus(
  d: OlmDeps,
  objs: readonly KubeObject[],
  signal: AbortSignal,
): Promise<ObjectStatus[]> {
  const rows: ObjectStatus[] = [];
  for (const obj of objs) {
    const base = { name: obj.metadata.name ?? '', namespace: obj.metadata.namespace ?? '', kind: obj.kind };
    try {
      const live = await liveOf(d, obj, signal);
      rows.push(live === undefined ? base : { ...base, live });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      rows.push({ ...base, error: (err as Error).message });
    }
  }
  return rows;
}

/** The version of the OLM installed in `namespace` (the packageserver CSV's olm.version label), if any. */
export async function installedVersion(
  d: OlmDeps,
  namespace: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const res = await d.kube.discover(CSV, { signal }).catch((err: unknown) => {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  });
  if (res === undefined) return undefined;
  const csvs = (await d.kube.list(res, { namespace, signal })).items.filter(
    (c) => c.metadata.name === 'packageserver' || c.metadata.name?.startsWith('packageserver.'),
  );
  if (csvs.length > 1) {
    throw new OlmVersionError(`more than one OLM (package server) version installed: ${csvs.map(where).join(', ')}`);
  }
  const csv = csvs[0];
  if (csv === undefined) return undefined;
  const label = csv.metadata.labels?.['olm.version'];
  if (label) return label;
  const fromName = csv.metadata.name?.replace(/^packageserver\.v?/, '') ?? '';
  if (/^\d+\.\d+\.\d+/.test(fromName)) return fromName;
  throw new OlmVersionError(`no OLM version found in CSV ${where(csv)}`);
}

/** The version status and uninstall act on: the installed one, which --version (when given) must match. */
async function resolveVersion(o: OlmOptions, d: OlmDeps, signal: AbortSignal): Promise<string> {
  const ns = o.namespace ?? 'olm';
  const found = await installedVersion(d, ns, signal);
  if (found === undefined) {
    if (o.version === '') {
      throw new OlmNotInstalledError(
        `no existing installation found (no packageserver CSV in namespace ${ns}); set --version to read that version's objects anyway`,
      );
    }
    return o.version;
  }
  if (o.version !== '' && !sameVersion(found, o.version)) {
    throw new OlmVersionError(
      `mismatched installed version ${JSON.stringify(found)} vs. supplied version ${JSON.stringify(o.version)}`,
    );
  }
  return found;
}

const load = (version: string, o: OlmOptions, d: OlmDeps, signal: AbortSignal): Promise<OlmManifests> =>
  loadOlmManifests(version, o.manifests, d.readers, signal).then((m) => {
    d.say(`Read the manifests of OLM ${version} from ${m.from}`);
    return m;
  });

/** Why a Deployment has not rolled out yet (operator-sdk's DoRolloutWait), or undefined once it has. */
export function rolloutWaiting(dep: KubeObject | undefined): string | undefined {
  if (dep === undefined) return 'not created yet';
  const st = (dep.status ?? {}) as Record<string, number | undefined>;
  if ((dep.metadata.generation ?? 0) > (st.observedGeneration ?? 0)) return 'spec update not observed yet';
  if (unhealthy(dep) === 'progress deadline exceeded')
    throw new OlmFailedError(`deployment ${where(dep)}: progress deadline exceeded`);
  const want = Number((dep.spec as { replicas?: number } | undefined)?.replicas ?? 1);
  const updated = st.updatedReplicas ?? 0;
  if (updated < want) return `${updated} out of ${want} new replicas have been updated`;
  if ((st.replicas ?? 0) > updated) return `${(st.replicas ?? 0) - updated} old replicas are pending termination`;
  if ((st.availableReplicas ?? 0) < updated)
    return `${st.availableReplicas ?? 0} of ${updated} updated replicas are available`;
  return undefined;
}

async function createAll(
  objs: readonly KubeObject[],
  d: OlmDeps,
  wait: ReturnType<typeof waiter>,
  signal: AbortSignal,
) {
  for (const obj of objs) {
    d.say(`  Creating ${obj.kind} ${JSON.stringify(where(obj))}`);
    // A kind of a CRD created just before may not be served yet: retried until the deadline, as operator-sdk does.
    await wait(`${obj.kind} ${where(obj)}`, async () => {
      const res = await resourceOf(d, obj, signal);
      if (res === undefined) return `kind ${obj.kind} (${obj.apiVersion}) not served yet`;
      await d.kube.create(res, obj, { signal }).catch((err: unknown) => {
        if ((err as { code?: string }).code !== 'KUBE_ALREADY_EXISTS') throw err;
      });
      return undefined;
    });
  }
}

/** `olm install`: the manifests of `o.version` applied and waited for; returns every object's status. */
export async function installOlm(o: OlmOptions, d: OlmDeps, signal: AbortSignal): Promise<ObjectStatus[]> {
  const m = await load(o.version, o, d, signal);
  const wait = waiter(o, d, signal);
  d.say('Checking for existing OLM CRDs and resources');
  const existing = (await readStatus(d, [...m.crds, ...m.resources], signal)).filter((r) => r.live !== undefined);
  if (existing.length > 0) {
    throw new OlmAlreadyInstalledError(
      `detected existing OLM resources (${existing
        .slice(0, 3)
        .map((r) => `${r.kind} ${r.name}`)
        .join(', ')}${existing.length > 3 ? ', …' : ''}): OLM must be completely uninstalled before installation`,
    );
  }
  d.say('Installing OLM CRDs...');
  await createAll(m.crds, d, wait, signal);
  for (const crd of m.crds) {
    await wait(`CustomResourceDefinition ${crd.metadata.name}`, async () => {
      const live = await liveOf(d, crd, signal);
      return live === undefined ? 'not found' : unhealthy(live);
    });
  }
  d.say('Creating OLM resources...');
  await createAll(m.resources, d, wait, signal);
  const deployments = m.resources.filter((r) => r.kind === 'Deployment');
  for (const dep of deployments) {
    d.say(`Waiting for deployment/${dep.metadata.name} rollout to complete`);
    await wait(`deployment/${dep.metadata.name}`, async () => rolloutWaiting(await liveOf(d, dep, signal)));
  }
  for (const csv of m.resources.filter((r) => r.kind === 'ClusterServiceVersion')) {
    d.say(`Waiting for clusterserviceversion/${csv.metadata.name} to reach 'Succeeded' phase`);
    await wait(`clusterserviceversion/${csv.metadata.name}`, async () => {
      const live = await liveOf(d, csv, signal);
      const status = (live?.status ?? {}) as { phase?: string; reason?: string; message?: string };
      if (status.phase === 'Failed') {
        throw new OlmFailedError(
          `csv ${where(csv)} failed: reason: ${JSON.stringify(status.reason)}, message: ${JSON.stringify(status.message)}`,
        );
      }
      return live === undefined ? 'not found' : unhealthy(live);
    });
    // The CSV's own Deployment (packageserver's), which OLM creates from it.
    const ns = csv.metadata.namespace ?? '';
    const dep: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: csv.metadata.name ?? '', namespace: ns },
    };
    d.say(`Waiting for deployment/${csv.metadata.name} rollout to complete`);
    await wait(`deployment/${csv.metadata.name}`, async () => rolloutWaiting(await liveOf(d, dep, signal)));
  }
  d.say(`Successfully installed OLM version ${JSON.stringify(o.version)}`);
  return readStatus(d, [...m.crds, ...m.resources], signal);
}

/** `olm status`: every object of the installed version's manifests; throws when none is there. */
export async function olmStatus(
  o: OlmOptions,
  d: OlmDeps,
  signal: AbortSignal,
): Promise<{ rows: ObjectStatus[]; healthy: boolean; version: string }> {
  const version = await resolveVersion(o, d, signal);
  const m = await load(version, o, d, signal);
  const rows = await readStatus(d, [...m.crds, ...m.resources], signal);
  if (!anyInstalled(rows)) throw new OlmNotInstalledError('no existing installation found');
  return { rows, healthy: allHealthy(rows), version };
}

/** `olm uninstall`: deletes every object of the installed version's manifests, waiting for each to be gone. */
export async function uninstallOlm(o: OlmOptions, d: OlmDeps, signal: AbortSignal): Promise<string> {
  const version = await resolveVersion(o, d, signal);
  const m = await load(version, o, d, signal);
  const objs = [...m.crds, ...m.resources];
  if (!anyInstalled(await readStatus(d, objs, signal)))
    throw new OlmNotInstalledError('no existing installation found');
  const wait = waiter(o, d, signal);
  d.say(`Uninstalling resources for version ${JSON.stringify(version)}`);
  for (const obj of objs) {
    const res = await resourceOf(d, obj, signal);
    const ns = res?.namespaced ? (obj.metadata.namespace ?? '') : '';
    const gone =
      res === undefined ||
      (await d.kube.delete(res, ns, obj.metadata.name ?? '', { signal, propagationPolicy: 'Background' }).then(
        () => false,
        (err: unknown) => {
          if (err instanceof NotFoundError) return true;
          throw err;
        },
      ));
    d.say(
      gone
        ? `  ${obj.kind} ${JSON.stringify(where(obj))} does not exist`
        : `  Deleting ${obj.kind} ${JSON.stringify(where(obj))}`,
    );
    await wait(`${obj.kind} ${where(obj)} to be deleted`, async () =>
      (await liveOf(d, obj, signal)) === undefined ? undefined : 'still there',
    );
  }
  d.say(`Successfully uninstalled OLM version ${JSON.stringify(version)}`);
  return version;
}
