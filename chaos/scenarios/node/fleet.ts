// The node group's 50 CRs of the fixture chart (chaos/fixtures/node-chart) and their churn (spec changes, deletes,
// creates) beside each fault, and the accounting every case ends with: time to converge, CRs lost (not converged by
// the deadline), releases left pending-*, and double writes (an upgrade revision that repeats the one before it).
// Used by the cases; writes only CRs of its own namespace.
import { gunzipSync } from 'node:zlib';
import { until } from '../../../test/support/until.ts';
import { crs, deployedAtGeneration, type Kube, pendingRecords, releaseRecords } from '../../kit/kube.ts';
import { between, pick, seededRandom } from '../kills/model.ts';

export const NS = 'chaos-node';

/** What a CR's objects must end with: its data value, or gone (deleted). */
type Want = { readonly data: string } | 'deleted';

export interface Verdict {
  /** CRs not converged: live ones not Deployed with their data, deleted ones with objects or records left. */
  readonly unconverged: string[];
  readonly pending: string[];
  readonly doubleWrites: string[];
  /** Upgrades that repeat a failed revision's values (a retry, not a double write): reported, no bar. */
  readonly retries: string[];
}

export interface Fleet {
  /** Creates `n` CRs and waits until all are Deployed; returns the time it took. */
  populate(n: number, signal: AbortSignal): Promise<number>;
  /** Starts churn (a change, delete or create every 300-900 ms) until the returned stop() is called. */
  churn(signal: AbortSignal): { stop(): Promise<{ changes: number; deletes: number; creates: number }> };
  patch(name: string, spec: Record<string, unknown>): Promise<void>;
  liveNames(): string[];
  /** Polls until every CR converged or `timeoutMs` passed; the time taken (undefined: not within it) and the tally. */
  converge(timeoutMs: number, signal: AbortSignal): Promise<{ ms: number | undefined; verdict: Verdict }>;
  verdict(): Promise<Verdict>;
  /** From now on, verdicts leave out the double writes and retries found so far (each case counts its own). */
  mark(): Promise<void>;
  /** The release's revisions, decoded, oldest first. */
  releases(name: string): Promise<ReleasePayload[]>;
}

export interface ReleasePayload {
  readonly name: string;
  readonly version: number;
  readonly config?: unknown;
  readonly info?: { readonly status?: string; readonly description?: string };
}

export function decodeRelease(data: string): ReleasePayload {
  const inner = Buffer.from(Buffer.from(data, 'base64').toString('utf8'), 'base64');
  return JSON.parse(gunzipSync(inner).toString('utf8')) as ReleasePayload;
}

/**
 * Double writes among one release's revisions: a revision after the first that is no rollback yet carries the very
 * values of the revision before it (a second writer redoing a change already written). When that one failed (an
 * upgrade interrupted or refused, retried with the same values) it is a retry instead, reported apart. Revisions must
 * be whole: a gap in the numbers is skipped.
 */
export function repeatedWrites(revisions: readonly ReleasePayload[]): { doubles: string[]; retries: string[] } {
  const sorted = [...revisions].sort((a, b) => a.version - b.version);
  const doubles: string[] = [];
  const retries: string[] = [];
  const how = (r: ReleasePayload) =>
    `${r.version} ${r.info?.status} "${(r.info?.description ?? '').replace(/\s+/g, ' ').trim().slice(0, 60)}"`;
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    const cur = sorted[i];
    if (!prev || !cur || cur.version !== prev.version + 1) continue;
    if (cur.info?.description?.startsWith('Rollback')) continue;
    if (JSON.stringify(cur.config ?? {}) !== JSON.stringify(prev.config ?? {})) continue;
    (prev.info?.status === 'failed' ? retries : doubles).push(
      `${cur.name}:${cur.version} (${how(prev)} then ${how(cur)})`,
    );
  }
  return { doubles, retries };
}

export function fleetFor(k: Kube, seed: number): Fleet {
  const cr = crs(k, NS);
  const rand = seededRandom(seed);
  const want = new Map<string, Want>();
  let next = 0;
  let counter = 0;
  const fresh = () => `n${String(next++).padStart(3, '0')}`;
  const value = () => `c${++counter}`;
  const live = () => [...want].filter(([, w]) => w !== 'deleted').map(([n]) => n);

  const create = async (name: string) => {
    const data = value();
    want.set(name, { data });
    await cr.create(name, { data });
  };

  /** Revisions (`name:version`) of double writes and retries counted by an earlier case. */
  const counted = new Set<string>();
  const key = (entry: string) => entry.split(' ')[0] ?? entry;
  const uncounted = (entries: string[]) => entries.filter((e) => !counted.has(key(e)));

  const verdict = async (): Promise<Verdict> => {
    const [list, maps, secrets] = await Promise.all([
      cr.list(),
      k.core.listNamespacedConfigMap({ namespace: NS }),
      k.core.listNamespacedSecret({ namespace: NS, labelSelector: 'owner=helm' }),
    ]);
    const byName = new Map(list.map((c) => [c.metadata.name, c]));
    const data = new Map(maps.items.map((m) => [m.metadata?.name ?? '', m.data?.data]));
    const released = new Set(secrets.items.map((s) => s.metadata?.labels?.name ?? ''));
    const unconverged: string[] = [];
    for (const [name, w] of want) {
      const c = byName.get(name);
      if (w === 'deleted') {
        if (c || data.has(`${name}-data`) || released.has(name)) unconverged.push(`${name} (deleted)`);
      } else if (!c || !deployedAtGeneration(c) || data.get(`${name}-data`) !== w.data) {
        unconverged.push(name);
      }
    }
    const records = await releaseRecords(k, NS);
    const byRelease = new Map<string, ReleasePayload[]>();
    for (const s of secrets.items) {
      const raw = s.data?.release;
      if (!raw) continue;
      const r = decodeRelease(raw);
      byRelease.set(r.name, [...(byRelease.get(r.name) ?? []), r]);
    }
    return {
      unconverged,
      pending: pendingRecords(records).pending,
      doubleWrites: uncounted([...byRelease.values()].flatMap((r) => repeatedWrites(r).doubles)),
      retries: uncounted([...byRelease.values()].flatMap((r) => repeatedWrites(r).retries)),
    };
  };

  return {
    async populate(n, signal) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await create(fresh());
      await until('every CR Deployed', async () => (await verdict()).unconverged.length === 0, {
        timeoutMs: 600_000,
        everyMs: 2_000,
        signal,
      });
      return performance.now() - t0;
    },
    churn(signal) {
      const tally = { changes: 0, deletes: 0, creates: 0 };
      const stop = new AbortController();
      const both = AbortSignal.any([signal, stop.signal]);
      const target = live().length;
      const loop = (async () => {
        const { setTimeout: sleep } = await import('node:timers/promises');
        while (!both.aborted) {
          const names = live();
          const r = rand();
          const name = pick(rand, names);
          if (names.length > target - 3 && r < 0.15 && name) {
            want.set(name, 'deleted');
            await cr.delete(name);
            tally.deletes++;
          } else if (names.length < target && r < 0.3) {
            await create(fresh());
            tally.creates++;
          } else if (name) {
            const data = value();
            want.set(name, { data });
            await cr.patchSpec(name, { data });
            tally.changes++;
          }
          await sleep(between(rand, 300, 900), undefined, { signal: both }).catch(() => undefined);
        }
      })();
      return {
        async stop() {
          stop.abort();
          await loop;
          return tally;
        },
      };
    },
    async patch(name, spec) {
      const data = typeof spec.data === 'string' ? spec.data : undefined;
      if (data !== undefined) want.set(name, { data });
      await cr.patchSpec(name, spec);
    },
    liveNames: live,
    async converge(timeoutMs, signal) {
      const t0 = performance.now();
      let last: Verdict | undefined;
      const ms = await until(
        'every CR converged',
        async () => {
          last = await verdict();
          return last.unconverged.length === 0 && last.pending.length === 0 && performance.now() - t0;
        },
        { timeoutMs, everyMs: 1_000, signal },
      ).catch(() => undefined);
      return { ms: ms === undefined ? undefined : Number(ms), verdict: last ?? (await verdict()) };
    },
    verdict,
    async mark() {
      const v = await verdict();
      for (const e of [...v.doubleWrites, ...v.retries]) counted.add(key(e));
    },
    async releases(name) {
      const list = await k.core.listNamespacedSecret({ namespace: NS, labelSelector: `owner=helm,name=${name}` });
      return list.items
        .flatMap((s) => (s.data?.release ? [decodeRelease(s.data.release)] : []))
        .sort((a, b) => a.version - b.version);
    },
  };
}
