// Tells when the real operator has acted on a change, from its own evidence: its debug log's trigger lines (a CR,
// one of its dependents or a values-from reference changed: reconcile "<ns>/<name>") and "Reconciled" lines, and
// its /metrics showing the controller idle (nothing queued, no worker busy). For integration tests that then assert
// that nothing happened; the operator must run with --zap-log-level=debug and --metrics-bind-address=127.0.0.1:0.
import { expect, vi } from 'vitest';
import { boundAddress } from './addresses.js';
import type { OperatorProcess, TestKind } from './operator.js';

/** The fields of the operator's JSON log lines that tell reconciles apart. */
export interface LogLine {
  readonly msg?: string;
  readonly key?: string;
  /** On "Dependent changed" lines: the dependent and what happened to it. */
  readonly trigger?: { readonly kind?: string; readonly name?: string; readonly event?: string };
}

/** The messages of the lines that queue the CR `key` for a reconcile. */
const TRIGGERS: ReadonlySet<string> = new Set([
  'Custom resource seen: reconcile',
  'Custom resource changed: reconcile',
  'Dependent changed: reconcile its owner',
  'Values-from reference changed: reconcile',
]);
const ENDED: ReadonlySet<string> = new Set(['Reconciled', 'Reconciler error']);
const POLL = { timeout: 60_000, interval: 100 } as const;

/** The operator's complete JSON log lines so far (a line still being written, and anything not JSON, skipped). */
export function logLines(op: OperatorProcess): LogLine[] {
  const out = op.output();
  return out
    .slice(0, out.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

/** Where the operator's log is now: a `from` for the waits below, which then look only at what it logs later. */
export function logMark(op: OperatorProcess): number {
  return logLines(op).length;
}

/** The lines since `from` that name the CR `key` ("<namespace>/<name>"): it was queued, or a reconcile of it ended. */
export function linesOf(op: OperatorProcess, key: string, from: number): LogLine[] {
  return logLines(op)
    .slice(from)
    .filter((l) => l.key === key);
}

/** Waits until the operator has logged, since `from`, a line that `matching` accepts. */
export async function loggedSince(op: OperatorProcess, from: number, matching: (l: LogLine) => boolean) {
  await vi.waitFor(() => expect(logLines(op).slice(from).some(matching), 'a line logged').toBe(true), POLL);
}

/** The controller of a watched kind, as the operator names it in logs and metrics. */
export function controllerOf(kind: TestKind): string {
  return `${kind.kind.toLowerCase()}-controller`;
}

/** The value of the series `name` of `controller` in a /metrics body; undefined when there is none. */
function series(body: string, name: string, controller: string): number | undefined {
  const line = body.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`controller="${controller}"`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

/**
 * Waits until one scrape of /metrics shows `controller` with nothing queued and no worker busy: every reconcile
 * queued before the call has finished (a key re-added while it is reconciled is queued again before the worker is
 * counted free). A retry or periodic requeue not due yet is not queued, so it does not count.
 */
export async function controllerIdle(op: OperatorProcess, controller: string): Promise<void> {
  await vi.waitFor(async () => {
    const at = boundAddress(op.output(), 'Serving metrics');
    expect(at, 'the operator serves /metrics').toBeDefined();
    const body = await (await fetch(`http://${at}/metrics`)).text();
    const state = ['workqueue_depth', 'controller_runtime_active_workers'].map((n) => series(body, n, controller));
    expect(state).toEqual([0, 0]);
  }, POLL);
}

export interface ReconciledOptions {
  readonly controller: string;
  /** The CR, "<namespace>/<name>". */
  readonly key: string;
  /** A logMark() taken before the change. */
  readonly from: number;
  /** How many trigger lines to wait for. @default 1 */
  readonly count?: number;
  /** Which trigger lines count. @default all */
  readonly matching?: (l: LogLine) => boolean;
}

/**
 * Waits until every reconcile of the CR `key` that its log shows queued since `from` has finished: at least `count`
 * trigger lines for it that `matching` accepts, a reconcile of it ended after the last of them, and then its
 * controller idle (a trigger that came during a reconcile runs one more, after it).
 */
export async function reconciledAfter(op: OperatorProcess, o: ReconciledOptions): Promise<void> {
  const { key, from, count = 1, matching = () => true } = o;
  await vi.waitFor(() => {
    const lines = logLines(op).slice(from);
    const hits = lines.flatMap((l, i) => (l.key === key && TRIGGERS.has(l.msg ?? '') && matching(l) ? [i] : []));
    expect(hits.length, `trigger lines for ${key}`).toBeGreaterThanOrEqual(count);
    const ended = lines.slice((hits.at(-1) ?? 0) + 1).filter((l) => l.key === key && ENDED.has(l.msg ?? ''));
    expect(ended.length, `reconciles of ${key} ended after its last trigger`).toBeGreaterThan(0);
  }, POLL);
  await controllerIdle(op, o.controller);
}

/** How many reconciles of the CR `key` ("<namespace>/<name>") the operator has finished so far. */
export function reconcilesOf(op: OperatorProcess, key: string): number {
  return logLines(op).filter((l) => l.key === key && l.msg === 'Reconciled').length;
}

/** Waits until the operator has finished at least `n` more reconciles of `key` (each within a period, plus a minute). */
export async function idleFor(op: OperatorProcess, key: string, n: number, periodMs: number): Promise<void> {
  const from = reconcilesOf(op, key);
  await vi.waitFor(() => expect(reconcilesOf(op, key)).toBeGreaterThanOrEqual(from + n), {
    timeout: n * periodMs + 60_000,
    interval: 250,
  });
}
