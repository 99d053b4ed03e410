// Picks, from the metadata of one release's records, the ones a reconcile reads: the newest revision and the newest
// deployed one (helm/history.ts' summarize needs no other). Used by reader.ts and cached-reader.ts, so only those
// are decoded and cached, not the whole --history-max. Pure; falls back to every record when a label is unreadable.
import type { KubeObject } from '../kube/types.js';

const versionOf = (r: KubeObject) => {
  const v = r.metadata.labels?.version;
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
};

/** The newest record and the newest `status=deployed` one (one record when they are the same), in input order. */
export function relevantRecords<T extends KubeObject>(records: readonly T[]): readonly T[] {
  let newest: T | undefined;
  let deployed: T | undefined;
  for (const r of records) {
    const version = versionOf(r);
    if (version === undefined) return records;
    if (newest === undefined || version > (versionOf(newest) ?? -1)) newest = r;
    if (r.metadata.labels?.status === 'deployed' && (deployed === undefined || version > (versionOf(deployed) ?? -1)))
      deployed = r;
  }
  return records.filter((r) => r === newest || r === deployed);
}
