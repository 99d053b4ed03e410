// One watch on the bench's CRs (by phase label) for the whole run: each wait in operator-bench.ts is answered from
// its events, stamped when they arrive, so waiting costs the API server nothing (a LIST poll of 100 CRs, each with
// its manifest in status, every 200 ms was charged to the operator's API server CPU). Re-opens the watch with a LIST
// when it ends. Used by operator-bench.ts only.
import { type KubeConfig, Watch } from '@kubernetes/client-node';

export type CR = {
  metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string> };
  status?: { conditions?: { type?: string; status?: string }[]; deployedRelease?: { revision?: number } };
};

export interface CrWatch {
  /** The newest copy of each CR of the phase (undefined once deleted). */
  get(name: string): CR | undefined;
  names(): string[];
  /** Resolves at the first event (or the current state) for which `done(name, cr)` holds, with performance.now(). */
  when(name: string, done: (cr: CR | undefined) => boolean): Promise<number>;
  close(): void;
}

export async function watchCRs(o: {
  kc: KubeConfig;
  path: string;
  phase: string;
  signal: AbortSignal;
}): Promise<CrWatch> {
  const current = new Map<string, CR>();
  const waiters = new Set<{ name: string; done: (cr: CR | undefined) => boolean; resolve: (t: number) => void }>();
  const check = (name: string) => {
    const now = performance.now();
    for (const w of waiters) {
      if (w.name === name && w.done(current.get(name))) {
        waiters.delete(w);
        w.resolve(now);
      }
    }
  };
  let stop: { abort(): void } | undefined;
  let closed = false;
  let lastRv: string | undefined; // a re-opened watch continues from here (no second round of ADDED events)
  const open = async (): Promise<void> => {
    stop = await new Watch(o.kc).watch(
      o.path,
      { labelSelector: `phase=${o.phase}`, allowWatchBookmarks: true, ...(lastRv ? { resourceVersion: lastRv } : {}) },
      (type, obj: CR) => {
        lastRv = obj.metadata?.resourceVersion ?? lastRv;
        if (type === 'BOOKMARK') return;
        const name = obj.metadata?.name ?? '';
        if (type === 'DELETED') current.delete(name);
        else current.set(name, obj);
        check(name);
      },
      () => {
        if (!closed && !o.signal.aborted) void open().catch(() => {});
      },
    );
  };
  await open();
  o.signal.addEventListener('abort', () => stop?.abort(), { once: true });
  return {
    get: (name) => current.get(name),
    names: () => [...current.keys()],
    when(name, done) {
      if (done(current.get(name))) return Promise.resolve(performance.now());
      return new Promise((resolve) => waiters.add({ name, done, resolve }));
    },
    close() {
      closed = true;
      stop?.abort();
    },
  };
}
