// The authoritative reader of Helm's release records: a LIST of the release namespace's Secrets labelled
// owner=helm,name=<release>, the records that matter (relevant.ts) decoded once per resourceVersion (cache.ts).
// Built by the manager and the cleanup command; cached-reader.ts falls back to it. Never caches Secret data, only the
// decoded records, within a bound.
import { releaseFromSecret } from '../helm/release.js';
import type { ApiResource, KubeClient } from '../kube/types.js';
import { ReleaseCache } from './cache.js';
import { relevantRecords } from './relevant.js';
import type { ReleaseReader, StoredRelease } from './types.js';

/** Where Helm keeps release records (HELM_DRIVER=secret). */
export const SECRETS: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
};

/** The release's newest and newest deployed records from the LIST, each decoded once per resourceVersion. */
export function releaseReader(kube: KubeClient, cache: ReleaseCache = new ReleaseCache()): ReleaseReader {
  return {
    async history(namespace, release, { signal }): Promise<StoredRelease[]> {
      const list = await kube.list(SECRETS, { namespace, labelSelector: `owner=helm,name=${release}`, signal });
      const owner = `${namespace}/${release}`;
      const records = relevantRecords(list.items);
      const stored = records.map((s) => {
        const { uid = '', resourceVersion = '' } = s.metadata;
        const decoded = cache.get({ owner, uid, resourceVersion }, () => releaseFromSecret(s));
        return { release: decoded, labels: s.metadata.labels ?? {} };
      });
      cache.retainOnly(owner, new Set(records.map((s) => s.metadata.uid ?? '')));
      return stored;
    },
  };
}
