// `helm-operator undeploy` (run by `make undeploy`): takes an operator out of a cluster without stranding custom
// resources. It deletes every CR of the deployment's kinds in all namespaces FIRST and waits, while the operator still
// runs, until their finalizers are gone; only then deletes the operator, its RBAC, the CRDs and the namespace.
// Called by cmd/tools.ts (runUndeploy). On timeout it deletes nothing else and says how to finish.
import type { Clock } from '../core/clock.js';
import { OperatorError } from '../core/errors.js';
import { NotFoundError } from '../kube/errors.js';
import { parseApiVersion } from '../kube/paths.js';
import type { ApiResource, KubeClient } from '../kube/types.js';
import { type CrdKind, crdKinds, deletionOrder, parseObjects } from './objects.js';

export class UndeployTimeoutError extends OperatorError {
  readonly code = 'UNDEPLOY_TIMEOUT';
}

export interface UndeployOptions {
  /** The rendered deployment (kustomize output). */
  readonly manifest: string;
  readonly timeoutMs: number;
  /** @default 2_000 */
  readonly pollMs?: number;
  readonly dryRun?: boolean;
}

export interface UndeployDeps {
  readonly kube: Pick<KubeClient, 'list' | 'delete' | 'discover'>;
  readonly clock: Clock;
  /** One line of progress for the user. */
  readonly say: (line: string) => void;
}

export async function undeploy(o: UndeployOptions, d: UndeployDeps, signal: AbortSignal): Promise<void> {
  const kinds = crdKinds(o.manifest);
  const objects = deletionOrder(parseObjects(o.manifest));
  await deleteCustomResources(kinds, o, d, signal);
  for (const obj of objects) {
    const where = obj.namespace ? `${obj.namespace}/${obj.name}` : obj.name;
    if (o.dryRun) {
      d.say(`would delete ${obj.kind} ${where}`);
      continue;
    }
    let res: ApiResource;
    try {
      res = await d.kube.discover({ ...parseApiVersion(obj.apiVersion), kind: obj.kind }, { signal });
    } catch (err) {
      if (err instanceof NotFoundError) continue; // its CRD is gone already: so is the object
      throw err;
    }
    const deleted = await d.kube.delete(res, res.namespaced ? (obj.namespace ?? '') : '', obj.name, { signal }).then(
      () => true,
      (err: unknown) => {
        if (err instanceof NotFoundError) return false;
        throw err;
      },
    );
    d.say(`${deleted ? 'deleted' : 'already gone:'} ${obj.kind} ${where}`);
  }
}

async function deleteCustomResources(
  kinds: readonly CrdKind[],
  o: UndeployOptions,
  d: UndeployDeps,
  signal: AbortSignal,
) {
  const live = async () => {
    const out: { kind: CrdKind; res: ApiResource; namespace: string; name: string }[] = [];
    for (const kind of kinds) {
      const res: ApiResource = { ...kind };
      try {
        const list = await d.kube.list(res, { namespace: '', signal });
        for (const item of list.items) {
          out.push({ kind, res, namespace: item.metadata.namespace ?? '', name: item.metadata.name ?? '' });
        }
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err; // CRD not installed: no CRs
      }
    }
    return out;
  };
  const first = await live();
  if (first.length === 0) return d.say('no custom resources to delete');
  const names = (items: typeof first) => items.map((c) => `${c.kind.kind} ${c.namespace}/${c.name}`).join(', ');
  if (o.dryRun) return d.say(`would delete ${first.length} custom resources first: ${names(first)}`);
  d.say(`deleting ${first.length} custom resources first, so the running operator uninstalls their releases`);
  for (const c of first) {
    await d.kube.delete(c.res, c.namespace, c.name, { signal }).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
  }
  const deadline = d.clock.now() + o.timeoutMs;
  for (;;) {
    const left = await live();
    if (left.length === 0) return d.say('every custom resource is gone (releases uninstalled)');
    if (d.clock.now() >= deadline) {
      throw new UndeployTimeoutError(
        `${left.length} custom resources still exist after ${Math.round(o.timeoutMs / 1000)} s: ${names(left)}. Nothing else was deleted. Is the operator running? Check its logs; if it is gone, run \`helm-operator cleanup\` to uninstall their releases and remove the finalizers, then run undeploy again.`,
      );
    }
    const secs = Math.round((deadline - d.clock.now()) / 1000);
    d.say(`waiting for ${left.length} custom resources to be finalized (${secs} s left): ${names(left.slice(0, 5))}`);
    await d.clock.sleep(o.pollMs ?? 2_000, signal);
  }
}
