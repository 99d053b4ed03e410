// The real operator for integration tests (through operator-process.ts, the one launcher), with helm behind a
// counting wrapper, and a CRD per test file so that files never share a kind. Test-only.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inject, vi } from 'vitest';
import { PRINTER_COLUMNS } from '../../src/scaffold/schema/crd.js';
import type { TestKube } from './kube.js';
import { isNotFound, uniqueName } from './kube.js';
import { launchOperator } from './operator-process.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const SAMPLE_CHART = join(ROOT, 'charts/nginx');
const COUNTING_HELM = join(ROOT, 'test/fixtures/bin/counting-helm');

export interface TestKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

/** A fresh namespaced CRD (status subresource, free-form spec) with a unique group; waits until it is served. */
export async function createTestCrd(kube: TestKube, kind = 'Nginx'): Promise<[TestKind, () => Promise<void>]> {
  const group = `${uniqueName('op')}.example.com`;
  const plural = `${kind.toLowerCase()}s`;
  const name = `${plural}.${group}`;
  const free = { type: 'object', x_kubernetes_preserve_unknown_fields: true } as const;
  await kube.apiext.createCustomResourceDefinition({
    body: {
      metadata: { name },
      spec: {
        group,
        names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1alpha1',
            served: true,
            storage: true,
            subresources: { status: {} },
            // The scaffold's printer columns: `kubectl get` shows what a user of a scaffolded project sees.
            additionalPrinterColumns: PRINTER_COLUMNS.map((c) => ({ ...c })),
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: free, status: free } } },
          },
        ],
      },
    },
  });
  await vi.waitFor(
    async () => {
      const crd = await kube.apiext.readCustomResourceDefinition({ name });
      if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) {
        throw new Error(`CRD ${name} is not Established yet`);
      }
    },
    { timeout: 30_000, interval: 100 },
  );
  return [
    { group, version: 'v1alpha1', kind, plural },
    async () => {
      await kube.apiext.deleteCustomResourceDefinition({ name }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    },
  ];
}

export interface OperatorProcess {
  readonly pid: number;
  /** SIGKILLs the operator and every helm process it started, as an OOM kill of the pod would. */
  kill(): Promise<void>;
  /**
   * The helm processes the operator started, in order: "version", "install", "upgrade", "upgrade dry-run", …; the
   * start-up warm-up's "template" (one per watch, manager/warm-up.ts) is only in allHelmCalls.
   */
  helmCalls(): string[];
  /** Every helm process the operator started, in order, the warm-up's "template" included. */
  allHelmCalls(): string[];
  /** Everything the operator logged so far. */
  output(): string;
  readonly exited: Promise<number | null>;
  /** SIGTERM, then wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOperatorOptions {
  readonly watches: string;
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Which helm of the run to use. @default the first */
  readonly helm?: string;
}

/** The operator through the one launcher (operator-process.ts), with helm behind the counting wrapper. */
export function startOperator(opts: StartOperatorOptions): OperatorProcess {
  const cluster = inject('cluster');
  const dir = mkdtempSync(join(tmpdir(), 'operator-test-'));
  const watchesFile = join(dir, 'watches.yaml');
  writeFileSync(watchesFile, opts.watches);
  const helmLog = join(dir, 'helm-calls.log');
  writeFileSync(helmLog, '');
  // Its own temp dir, removed with `dir` when it exits: a killed operator's work directory goes too.
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  // Tests run several operators at once: the metrics and probe servers stay off unless a test asks for them.
  const args = opts.args ?? [];
  const has = (...flags: string[]) => args.some((a) => flags.some((f) => a === f || a.startsWith(`${f}=`)));
  const off = [
    ...(has('--metrics-bind-address', '--metrics-addr') ? [] : ['--metrics-bind-address=0']),
    ...(has('--health-probe-bind-address') ? [] : ['--health-probe-bind-address=0']),
  ];
  const operator = launchOperator({
    root: ROOT,
    watchesFile,
    args: [...off, ...args],
    // A test's own KUBECONFIG or HELM_BINARY (a restricted account, a wrapper, a missing helm) wins.
    env: {
      ...process.env,
      KUBECONFIG: cluster.kubeconfig,
      HELM_BINARY: COUNTING_HELM,
      COUNTING_HELM_REAL: opts.helm ?? Object.values(cluster.helms)[0],
      COUNTING_HELM_LOG: helmLog,
      TMPDIR: tmp,
      ...opts.env,
    },
    logFile: join(dir, 'operator.log'),
  });
  const readCalls = () =>
    existsSync(helmLog)
      ? readFileSync(helmLog, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
      : [];
  let finalCalls: string[] | undefined;
  const exited = operator.exited.then((code) => {
    finalCalls = readCalls();
    rmSync(dir, { recursive: true, force: true });
    return code;
  });
  return {
    pid: operator.pid,
    async kill() {
      await operator.killGroup();
      await exited;
    },
    helmCalls: () => (finalCalls ?? readCalls()).filter((c) => c !== 'template'),
    allHelmCalls: () => finalCalls ?? readCalls(),
    output: () => operator.output(),
    exited,
    async stop() {
      await operator.stop();
      return exited;
    },
  };
}

/** watches.yaml text for one or more kinds, all mapped to the sample chart unless given. */
export function watchesYaml(kinds: readonly (TestKind & { chart?: string; extra?: string })[]): string {
  return kinds
    .map(
      (k) =>
        `- group: ${k.group}\n  version: ${k.version}\n  kind: ${k.kind}\n  chart: ${k.chart ?? SAMPLE_CHART}\n${k.extra ?? ''}`,
    )
    .join('');
}

/** Runs every cleanup (last registered first) even when some fail, then throws the first failure. */
export async function runCleanups(cleanups: (() => Promise<unknown>)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const c of [...cleanups].reverse()) {
    try {
      await c();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length > 0) throw errors[0];
}

export const FAILING_CHART = join(ROOT, 'test/fixtures/charts/failing');
/** Namespaced, cluster-scoped, keep-policy and cross-namespace objects, for ownership and drift tests. */
export const DEPENDENTS_CHART = join(ROOT, 'test/fixtures/charts/dependents');

export interface CrStatus {
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
  deployedRelease?: { name: string; manifest: string; revision?: number };
  failures?: number;
  observedGeneration?: number;
}
export interface Cr {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    finalizers?: string[];
    generation?: number;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
  spec?: unknown;
  status?: CrStatus;
}

/** Small CR helpers for one kind in one namespace. */
export function crClient(kube: TestKube, kind: TestKind, namespace: string) {
  const target = { group: kind.group, version: kind.version, plural: kind.plural, namespace };
  const get = async (name: string) => (await kube.custom.getNamespacedCustomObject({ ...target, name })) as Cr;
  /** Replaces the CR with `change` applied to the copy read (read-modify-write; retried on conflict). */
  const rewrite = async (name: string, change: (cr: Cr) => Cr) => {
    for (let attempt = 0; ; attempt++) {
      const cr = await get(name);
      try {
        return (await kube.custom.replaceNamespacedCustomObject({ ...target, name, body: change(cr) })) as Cr;
      } catch (err) {
        if (attempt >= 5 || !(err instanceof Error && 'code' in err && err.code === 409)) throw err;
      }
    }
  };
  return {
    get,
    async create(name: string, spec: unknown, metadata: Record<string, unknown> = {}) {
      const body = {
        apiVersion: `${kind.group}/${kind.version}`,
        kind: kind.kind,
        metadata: { ...metadata, name },
        spec,
      };
      return (await kube.custom.createNamespacedCustomObject({ ...target, body })) as Cr;
    },
    /** Replaces the spec (read-modify-write; retried on conflict). */
    setSpec: (name: string, spec: unknown) => rewrite(name, (cr) => ({ ...cr, spec })),
    /** Sets (a string) or removes (undefined) annotations (read-modify-write; retried on conflict). */
    annotate: (name: string, changes: Record<string, string | undefined>) =>
      rewrite(name, (cr) => {
        const merged = Object.entries({ ...cr.metadata.annotations, ...changes });
        const annotations = Object.fromEntries(merged.filter(([, v]) => v !== undefined)) as Record<string, string>;
        return { ...cr, metadata: { ...cr.metadata, annotations } };
      }),
    async delete(name: string) {
      await kube.custom.deleteNamespacedCustomObject({ ...target, name }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    },
    async condition(name: string, type: string) {
      return (await get(name)).status?.conditions?.find((c) => c.type === type);
    },
  };
}

/** The revisions of a release as Helm recorded them, oldest first: "1:superseded", "2:deployed", … */
export async function releaseRevisions(kube: TestKube, namespace: string, release: string): Promise<string[]> {
  const list = await kube.core.listNamespacedSecret({ namespace, labelSelector: `owner=helm,name=${release}` });
  return list.items
    .map((s) => ({ v: Number(s.metadata?.labels?.version), status: s.metadata?.labels?.status ?? '?' }))
    .sort((a, b) => a.v - b.v)
    .map((r) => `${r.v}:${r.status}`);
}

/**
 * Marks the test chart's hook Jobs in `namespace` as complete, for hooks whose pods never run (the failing chart's
 * hook, or one pinned to no node), so helm would otherwise wait for them. Returns how many it completed.
 */
export async function completeHookJobs(kube: TestKube, namespace: string): Promise<number> {
  const jobs = await kube.batch.listNamespacedJob({ namespace, labelSelector: 'test.helm-operator/hook=true' });
  let done = 0;
  for (const job of jobs.items) {
    if (job.status?.conditions?.some((c) => c.type === 'Complete')) continue;
    const now = new Date();
    const condition = (type: string) => ({ type, status: 'True', lastProbeTime: now, lastTransitionTime: now });
    job.status = {
      ...job.status,
      startTime: job.status?.startTime ?? now,
      completionTime: now,
      succeeded: 1,
      // With a job controller on the plane a Pending pod counts as active; a finished Job must have none.
      active: 0,
      conditions: [condition('SuccessCriteriaMet'), condition('Complete')],
    };
    await kube.batch.replaceNamespacedJobStatus({ name: job.metadata?.name ?? '', namespace, body: job });
    done++;
  }
  return done;
}
