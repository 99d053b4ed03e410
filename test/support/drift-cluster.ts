// The cluster drift-repair tests run against: FakeKubeApi serving ConfigMaps, Deployments and ClusterRoles, with
// PATCH failures by object name and the GETs, PATCHes and dry-run PATCHes read back in the shape the tests assert.
// Used by src/drift/*.test.ts; test-only.
import type { KubeObject, PatchOptions } from '../../src/kube/types.js';
import { clusterRoles, configMaps, deployments, FakeKubeApi } from '../fakes/kube-api.js';

/** The cluster for drift tests: `objects` stored, `failPatch` by name (dry run or not), `failDryRun` dry runs only. */
export function fakeKube(
  objects: KubeObject[],
  failPatch: Record<string, Error> = {},
  more: { failDryRun?: Record<string, Error>; mutate?: (obj: KubeObject) => KubeObject } = {},
) {
  const kube = new FakeKubeApi({
    served: [configMaps, deployments, clusterRoles],
    objects,
    ...(more.mutate ? { mutate: more.mutate } : {}),
  });
  for (const [name, err] of Object.entries(more.failDryRun ?? {}))
    kube.failOn({ verb: 'patch', name, dryRun: true }, err);
  for (const [name, err] of Object.entries(failPatch)) kube.failOn({ verb: 'patch', name }, err);
  const patchCalls = (dryRun: boolean) =>
    kube.callsOf('patch', { dryRun }).map((c) => ({
      res: c.res,
      namespace: c.namespace,
      name: c.name,
      body: c.body as Record<string, unknown>,
      type: c.patchType,
      options: c.options as PatchOptions,
    }));
  return {
    kube,
    get gets() {
      return kube.callsOf('get').map((c) => `${c.res?.plural}/${c.namespace}/${c.name}`);
    },
    get patches() {
      return patchCalls(false);
    },
    get dryRuns() {
      return patchCalls(true);
    },
  };
}
