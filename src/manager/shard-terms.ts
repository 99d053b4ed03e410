// A shard's term as an AbortSignal: runs `open(shard, signal)` for each shard this replica holds (those held when
// started, then each one taken) and aborts that signal when the shard is given back or the run ends. Used by the
// shard informers and the labeller (shard-informers.ts, shard-labeller.ts); never takes or gives up a shard itself.
import type { ShardOwnership } from './shard-gate.js';

export interface ShardTermsOptions {
  readonly shards: Pick<ShardOwnership, 'held' | 'onAcquired' | 'onReleased'>;
  /** Which shards to open a term for. @default every shard */
  readonly only?: (shard: number) => boolean;
  /** Called once per term, with a signal that aborts when the term ends. */
  readonly open: (shard: number, signal: AbortSignal) => void;
}

export interface ShardTerms {
  /** Opens the terms of the shards held now, then of each one taken, until `signal` aborts. */
  start(signal: AbortSignal): void;
  /** The shards whose term is open, ascending. */
  open(): number[];
}

export function shardTerms(o: ShardTermsOptions): ShardTerms {
  const terms = new Map<number, AbortController>();
  let running: AbortSignal | undefined;
  const begin = (shard: number) => {
    if (running === undefined || running.aborted || terms.has(shard) || o.only?.(shard) === false) return;
    const term = new AbortController();
    terms.set(shard, term);
    o.open(shard, AbortSignal.any([running, term.signal]));
  };
  const end = (shard: number) => {
    const term = terms.get(shard);
    terms.delete(shard);
    term?.abort(new Error(`shard ${shard} given back`));
  };
  o.shards.onAcquired(begin);
  o.shards.onReleased(end);
  return {
    start(signal) {
      running = signal;
      signal.addEventListener('abort', () => terms.clear(), { once: true });
      for (const shard of o.shards.held()) begin(shard);
    },
    open: () => [...terms.keys()].sort((a, b) => a - b),
  };
}
