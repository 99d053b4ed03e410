// One operator per describe block for integration tests: registers beforeAll/afterAll that create the CRDs and
// namespaces a file needs, start the operator (or let the tests start it, several times if they like), and at the
// end delete every CR the tests registered (while the operator runs, so releases are uninstalled), stop every
// operator started, and remove namespaces and CRDs. Test-only.
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { createTestNamespace, isGone, type TestKube, testKube } from './kube.js';
import {
  crClient,
  createTestCrd,
  FAILING_CHART,
  type OperatorProcess,
  runCleanups,
  type StartOperatorOptions,
  startOperator,
  type TestKind,
  watchesYaml,
} from './operator.js';

export const POLL = { timeout: 60_000, interval: 250 } as const;

/** A CRD the fixture creates and (unless `watched: false`) puts in watches.yaml. */
export interface FixtureKind {
  readonly kind: string;
  /** @default the sample chart (charts/nginx) */
  readonly chart?: string;
  /** More lines of its watches.yaml entry, e.g. a selector. */
  readonly extra?: string;
}

export interface OperatorFixtureOptions {
  /** The CRDs to create, in order; `kind` is the first. @default one `Nginx` */
  readonly kinds?: readonly (string | FixtureKind)[];
  /** Prefixes of the namespaces to create, in order; `ns` is the first. @default ['op'] */
  readonly namespaces?: readonly string[];
  /** Start an operator in beforeAll; otherwise the tests call `start()`. @default true */
  readonly start?: boolean;
  /** The helm binary of the run to use (a path from `inject('cluster').helms`). @default the first */
  readonly helm?: string;
  /**
   * How to start the operator, given the fixture once its CRDs and namespaces exist (may prepare more, such as a
   * ServiceAccount kubeconfig); called once, in beforeAll. Merged over the defaults: every kind watched,
   * WATCH_NAMESPACE = the first namespace.
   */
  readonly operator?: (f: OperatorFixture) => Partial<StartOperatorOptions> | Promise<Partial<StartOperatorOptions>>;
  /** How long to wait for each registered CR to go at the end. @default POLL */
  readonly poll?: { readonly timeout: number; readonly interval: number };
  /** Run while waiting for the registered CRs to go at the end (e.g. to free objects a foreign finalizer holds). */
  readonly whileDeleting?: () => Promise<unknown>;
}

export interface OperatorFixture {
  readonly kube: TestKube;
  /** The first namespace. */
  readonly ns: string;
  readonly namespaces: readonly string[];
  /** The first kind. */
  readonly kind: TestKind;
  readonly kinds: readonly TestKind[];
  /** The operator started last. */
  readonly op: OperatorProcess;
  /** CR helpers for the first kind in the first namespace. */
  readonly crs: ReturnType<typeof crClient>;
  /** Creates a CR (first kind, first namespace) that the fixture deletes at the end. */
  create(name: string, spec: unknown, annotations?: Record<string, string>): Promise<void>;
  /** Registers a CR the test created for deletion at the end (while the operators still run). */
  track(kind: TestKind, namespace: string, name: string): void;
  /** Starts an operator: the fixture's options with `overrides` on top (env merged); stopped at the end. */
  start(overrides?: Partial<StartOperatorOptions>): OperatorProcess;
  /** Creates one more namespace, deleted at the end (after the tests' own cleanups registered later). */
  addNamespace(prefix: string): Promise<string>;
  /** Runs `fn` at the end, once the operators stopped and before namespaces and CRDs are removed. */
  onCleanup(fn: () => Promise<unknown>): void;
  /** Runs `fn` at the very end, after the namespaces and CRDs are gone. */
  onFinalCleanup(fn: () => Promise<unknown>): void;
}

/** The fixture for the given options; `useOperatorFixture(kind, nsPrefix)` is the failing chart's short form. */
export function useOperatorFixture(options: OperatorFixtureOptions): OperatorFixture;
export function useOperatorFixture(kindName: string, nsPrefix: string): OperatorFixture;
export function useOperatorFixture(first: OperatorFixtureOptions | string, nsPrefix?: string): OperatorFixture {
  const o: OperatorFixtureOptions =
    typeof first === 'string'
      ? { kinds: [{ kind: first, chart: FAILING_CHART }], namespaces: [nsPrefix ?? 'op'] }
      : first;
  const specs = (o.kinds ?? ['Nginx']).map((k) => (typeof k === 'string' ? { kind: k } : k));
  const tracked: [TestKind, string, string][] = [];
  const started: OperatorProcess[] = [];
  const setup: (() => Promise<unknown>)[] = [];
  const user: (() => Promise<unknown>)[] = [];
  const finals: (() => Promise<unknown>)[] = [];
  let closing: (() => Promise<unknown>) | undefined;
  let defaults: Partial<StartOperatorOptions> | undefined;
  const state: { kube?: TestKube; namespaces?: string[]; kinds?: TestKind[] } = {};
  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`the operator fixture is not set up yet (${what})`);
    return v;
  };

  const fixture: OperatorFixture = {
    get kube() {
      return need(state.kube, 'kube');
    },
    get namespaces() {
      return need(state.namespaces, 'namespaces');
    },
    get ns() {
      return need(state.namespaces?.[0], 'ns');
    },
    get kinds() {
      return need(state.kinds, 'kinds');
    },
    get kind() {
      return need(state.kinds?.[0], 'kind');
    },
    get op() {
      return need(started.at(-1), 'op');
    },
    get crs() {
      return crClient(fixture.kube, fixture.kind, fixture.ns);
    },
    async create(name, spec, annotations) {
      fixture.track(fixture.kind, fixture.ns, name);
      await fixture.crs.create(name, spec, annotations ? { annotations } : {});
    },
    track(kind, namespace, name) {
      tracked.push([kind, namespace, name]);
    },
    start(overrides = {}) {
      const wanted = need(defaults, 'operator options');
      const watches = watchesYaml(fixture.kinds.map((k, i) => ({ ...k, ...specs[i] })));
      const op = startOperator({
        watches,
        ...(o.helm === undefined ? {} : { helm: o.helm }),
        ...wanted,
        ...overrides,
        env: {
          ...(fixture.namespaces.length > 0 ? { WATCH_NAMESPACE: fixture.ns } : {}),
          ...wanted.env,
          ...overrides.env,
        },
      });
      started.push(op);
      return op;
    },
    async addNamespace(prefix) {
      const [ns, deleteNs] = await createTestNamespace(fixture.kube, prefix);
      user.push(deleteNs);
      return ns;
    },
    onCleanup(fn) {
      user.push(fn);
    },
    onFinalCleanup(fn) {
      finals.unshift(fn);
    },
  };

  beforeAll(async () => {
    const kube = testKube();
    state.kube = kube;
    state.kinds = [];
    state.namespaces = [];
    for (const spec of specs) {
      const [kind, deleteCrd] = await createTestCrd(kube, spec.kind);
      state.kinds.push(kind);
      setup.push(deleteCrd);
    }
    for (const prefix of o.namespaces ?? ['op']) {
      const [ns, deleteNs] = await createTestNamespace(kube, prefix);
      state.namespaces.push(ns);
      setup.push(deleteNs);
    }
    closing = async () => {
      try {
        for (const [kind, ns, name] of tracked) await crClient(kube, kind, ns).delete(name);
        for (const [kind, ns, name] of tracked) {
          const crs = crClient(kube, kind, ns);
          await vi.waitFor(async () => {
            await o.whileDeleting?.();
            expect(await isGone(() => crs.get(name))).toBe(true);
          }, o.poll ?? POLL);
        }
      } finally {
        for (const op of started) await stopWithin(op, STOP_GRACE_MS);
      }
    };
    defaults = (await o.operator?.(fixture)) ?? {};
    if (o.start !== false) fixture.start();
  });

  afterAll(async () => {
    // Last first: CRs deleted and operators stopped, the tests' cleanups, namespaces, CRDs, the final ones.
    await runCleanups([...finals, ...setup, ...user, ...(closing ? [closing] : [])]);
  });

  return fixture;
}

/** How long a fixture operator may take to stop on SIGTERM before the cleanup SIGKILLs it. */
const STOP_GRACE_MS = 45_000;

/**
 * SIGTERM, then SIGKILL if the operator has not exited within `graceMs`, so that one slow shutdown cannot time out
 * a file's cleanup. A slow stop is reported on stderr with the tail of the operator's log, to be looked into; the
 * graceful-stop behaviour itself is asserted by shutdown.test.ts.
 */
async function stopWithin(op: OperatorProcess, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  try {
    if ((await Promise.race([op.stop(), late])) !== 'late') return;
  } finally {
    clearTimeout(timer);
  }
  process.stderr.write(`operator ${op.pid} did not stop within ${graceMs} ms of SIGTERM; killing it. Log tail:\n`);
  process.stderr.write(`${op.output().slice(-4000)}\n`);
  await op.kill();
}
