// The contract of one bad-input case (a table row: name, bar, run), the runner that drives a table of them at once,
// and the two shapes most cases share: "this CR gets this condition" and "this annotation is reported and ignored".
// Used by index.ts and the *-cases.ts tables; never starts an operator itself.

import { until } from '../../../test/support/until.ts';
import type { Kube } from '../../kit/kube.ts';
import type { OperatorHandle } from '../../kit/operator.ts';
import type { ScenarioContext } from '../../kit/scenario.ts';
import { eventsOf, type KindRef, NGINX, objects } from './kube.ts';

export interface CaseEnv {
  readonly ctx: ScenarioContext;
  readonly k: Kube;
  /** The namespace of the CR cases (the long-running operator watches it). */
  readonly ns: string;
  /** The long-running operator of the CR cases. */
  readonly op: OperatorHandle;
  /** Absolute path of chaos/fixtures. */
  readonly fixtures: string;
}

export interface BadCase {
  /** The row's figure: the bad input. */
  readonly name: string;
  /** What had to happen, in a few words. */
  readonly bar: string;
  /** Part of the short run (the fastest cases). */
  readonly short?: boolean;
  /** Kinds of chaos.example.com its CRs need (index.ts watches each with its chart and installs its CRD). */
  readonly kinds?: readonly string[];
  /** Does the bad thing and waits for the outcome: resolves with what it saw, throws Missed (what it saw) if not. */
  run(e: CaseEnv): Promise<string>;
  /** Always called after run (stops what the case started). */
  cleanup?(e: CaseEnv): Promise<void>;
}

/** A case whose expectation was not met: the message is what was observed instead. */
export class Missed extends Error {}

export interface CaseResult {
  readonly name: string;
  readonly bar: string;
  readonly ok: boolean;
  readonly value: string;
}

/** Runs every case at once; a case that throws is a missed row, never a failed scenario. */
export async function runCases(cases: readonly BadCase[], e: CaseEnv): Promise<CaseResult[]> {
  const settled = await Promise.allSettled(
    cases.map(async (c) => {
      const t0 = performance.now();
      try {
        return await c.run(e);
      } finally {
        await c.cleanup?.(e).catch((err: unknown) => e.ctx.log(`${c.name}: cleanup failed: ${String(err)}`));
        e.ctx.log(`case "${c.name}" done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      }
    }),
  );
  return settled.map((s, i) => {
    const c = cases[i] as BadCase;
    if (s.status === 'fulfilled') return { name: c.name, bar: c.bar, ok: true, value: s.value };
    const err: unknown = s.reason;
    const why = err instanceof Missed ? err.message : `error: ${err instanceof Error ? err.message : String(err)}`;
    return { name: c.name, bar: c.bar, ok: false, value: why };
  });
}

/** Polls `probe` until it reports ok and resolves with what it saw then; at the deadline throws Missed with it. */
export async function expectWithin(
  e: CaseEnv,
  timeoutMs: number,
  probe: () => Promise<{ readonly ok: boolean; readonly seen: string }>,
): Promise<string> {
  let seen = 'nothing yet';
  try {
    const done = await until(
      'the expected outcome',
      async () => {
        try {
          const r = await probe();
          seen = r.seen;
          return r.ok ? { seen: r.seen } : false;
        } catch (err) {
          seen = `error: ${err instanceof Error ? err.message : String(err)}`;
          return false;
        }
      },
      { timeoutMs, everyMs: 400, signal: e.ctx.signal },
    );
    return done.seen;
  } catch (err) {
    if (e.ctx.signal.aborted) throw err;
    throw new Missed(`${seen} (after ${timeoutMs / 1000} s)`);
  }
}

/** "Type/Reason: message" of a condition, or what is there instead. */
export function showCondition(c: { type: string; status: string; reason?: string; message?: string } | undefined) {
  return c ? `${c.type}=${c.status}/${c.reason ?? ''}: ${c.message ?? ''}` : 'no such condition';
}

export interface ConditionExpectation {
  readonly type: 'Irreconcilable' | 'ReleaseFailed' | 'Deployed';
  readonly reason: string;
  /** A fragment of the message that the docs (docs/*.md) document (or helm prints). */
  readonly match: RegExp;
}

/** Waits until CR `name` of `ref` has condition `x` True with its reason and a message matching; returns "x: fragment". */
export function expectCondition(
  e: CaseEnv,
  ref: KindRef,
  name: string,
  x: ConditionExpectation,
  timeoutMs = 90_000,
): Promise<string> {
  const crs = objects(e.k, ref, e.ns);
  return expectWithin(e, timeoutMs, async () => {
    const c = await crs.condition(name, x.type);
    const m = c?.status === 'True' && c.reason === x.reason ? x.match.exec(c.message ?? '') : null;
    return m ? { ok: true, seen: `${x.type}/${x.reason}: "${m[0]}"` } : { ok: false, seen: showCondition(c) };
  });
}

/** A CR of `ref` (Nginx unless given) with `spec` (and annotations) that must end with condition `x`. */
export function conditionCase(o: {
  readonly name: string;
  readonly bar: string;
  readonly short?: boolean;
  readonly kind?: string;
  readonly ref?: KindRef;
  readonly cr: string;
  readonly spec: unknown;
  readonly annotations?: Record<string, string>;
  readonly expect: ConditionExpectation;
}): BadCase {
  const ref = o.ref ?? NGINX;
  return {
    name: o.name,
    bar: o.bar,
    ...(o.short ? { short: true } : {}),
    ...(o.kind ? { kinds: [o.kind] } : {}),
    async run(e) {
      await objects(e.k, ref, e.ns).create(o.cr, o.spec, o.annotations);
      return expectCondition(e, ref, o.cr, o.expect);
    },
  };
}

/** A sample CR with an invalid `helm.sdk.operatorframework.io/<key>`: an InvalidAnnotation event, still Deployed. */
export function annotationCase(o: {
  readonly key: string;
  readonly value: string;
  readonly cr: string;
  readonly short?: boolean;
}): BadCase {
  const annotation = `helm.sdk.operatorframework.io/${o.key}`;
  return {
    name: `annotation ${o.key}: ${JSON.stringify(o.value)}`,
    bar: 'InvalidAnnotation event naming it; default used, Deployed',
    ...(o.short ? { short: true } : {}),
    async run(e) {
      await objects(e.k, NGINX, e.ns).create(o.cr, {}, { [annotation]: o.value });
      const deployed = await expectCondition(e, NGINX, o.cr, {
        type: 'Deployed',
        reason: 'InstallSuccessful',
        match: /deployed/,
      });
      return expectWithin(e, 30_000, async () => {
        const ev = (await eventsOf(e.k, e.ns, o.cr)).find((x) => x.reason === 'InvalidAnnotation');
        const names = ev?.type === 'Warning' && ev.message.includes(`${annotation}=${JSON.stringify(o.value)}`);
        return names
          ? { ok: true, seen: `${deployed.split(':')[0]}; InvalidAnnotation names ${o.key}` }
          : { ok: false, seen: ev ? `event ${ev.type}/${ev.reason}: ${ev.message}` : 'no InvalidAnnotation event' };
      });
    },
  };
}
