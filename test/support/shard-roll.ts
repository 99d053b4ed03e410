// What the sharding tests read from the replicas' logs and the CRs: each reconcile as an interval (from its
// "Reconciled" or "Reconciler error" line: the time logged, minus `ms`), the overlaps of one key's reconciles in
// two replicas, and a churn of spec changes and creations that runs while a test restarts replicas. Test-only.
import type { Cr, crClient, OperatorProcess } from './operator.js';

export interface LogLine {
  readonly msg?: string;
  readonly key?: string;
  readonly name?: string;
  readonly shard?: number;
  readonly ms?: number;
  readonly time?: string;
}

/** The operator's JSON log lines (stderr warnings of Node, if any, are skipped). */
export function logLines(op: OperatorProcess): LogLine[] {
  return op
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

export interface Interval {
  readonly replica: number;
  readonly start: number;
  readonly end: number;
}

/** Every reconcile of every process, by key. */
export function reconcileIntervals(ops: readonly OperatorProcess[]): Map<string, Interval[]> {
  const byKey = new Map<string, Interval[]>();
  ops.forEach((op, replica) => {
    for (const l of logLines(op)) {
      if ((l.msg !== 'Reconciled' && l.msg !== 'Reconciler error') || l.key === undefined) continue;
      const end = Date.parse(l.time ?? '');
      byKey.set(l.key, [...(byKey.get(l.key) ?? []), { replica, start: end - (l.ms ?? 0), end }]);
    }
  });
  return byKey;
}

/**
 * The keys reconciled by two processes at once: intervals of different processes that overlap by more than
 * `slackMs` (log times are whole milliseconds, taken a moment after the duration was measured).
 */
export function overlaps(byKey: ReadonlyMap<string, Interval[]>, slackMs = 5): string[] {
  const found: string[] = [];
  for (const [key, all] of byKey) {
    const sorted = [...all].sort((a, b) => a.start - b.start);
    sorted.forEach((a, i) => {
      for (const b of sorted.slice(i + 1)) {
        if (b.replica !== a.replica && b.start < a.end - slackMs) {
          found.push(`${key}: replica ${a.replica} ${a.start}…${a.end}, replica ${b.replica} ${b.start}…${b.end}`);
        }
      }
    });
  }
  return found;
}

/** Spec changes (and every third tick a new CR) every `everyMs` until stopped; `rounds` holds each CR's last. */
export function churn(crs: ReturnType<typeof crClient>, names: string[], everyMs = 300) {
  const rounds = new Map<string, number>(names.map((n) => [n, 1]));
  let stopped = false;
  let tick = 0;
  const errors: unknown[] = [];
  const running = (async () => {
    while (!stopped) {
      tick++;
      try {
        if (tick % 3 === 0) {
          const name = `churn-${String(tick).padStart(4, '0')}`;
          await crs.create(name, { round: 1 });
          names.push(name);
          rounds.set(name, 1);
        } else {
          const name = names[(tick * 7) % names.length] as string;
          const round = (rounds.get(name) ?? 1) + 1;
          await crs.setSpec(name, { round });
          rounds.set(name, round);
        }
      } catch (err) {
        errors.push(err);
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    rounds,
    errors,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** True when the CR's newest spec is deployed: Deployed=True for its generation, at `round`. */
export function deployed(cr: Cr, round: number): boolean {
  return (
    (cr.spec as { round?: number } | undefined)?.round === round &&
    cr.status?.observedGeneration === cr.metadata.generation &&
    cr.status?.conditions?.some((c) => c.type === 'Deployed' && c.status === 'True') === true
  );
}
