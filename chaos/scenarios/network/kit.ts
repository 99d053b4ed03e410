// Shared pieces of the network chaos scenario: a kubeconfig that points at a proxy, the watches file, changes to
// CRs (made through the direct API) and the check that a change is applied (CR Deployed at its generation, its
// spec on the Deployment). Used by index.ts and leader.ts; holds no processes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../../../test/support/until.ts';
import { crs, deployedAtGeneration, type Kube } from '../../kit/kube.ts';
import { type OperatorHandle, startOperator } from '../../kit/operator.ts';
import type { ScenarioContext } from '../../kit/scenario.ts';

/** Writes a copy of the plane's kubeconfig whose server is 127.0.0.1:`port` (same CA and client certificate). */
export function proxyKubeconfig(ctx: ScenarioContext, port: number, file: string): string {
  const text = readFileSync(ctx.plane.kubeconfig, 'utf8').replace(
    /server:\s*https:\/\/127\.0\.0\.1:\d+/,
    `server: https://127.0.0.1:${port}`,
  );
  const path = join(ctx.work, file);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

export function writeWatches(ctx: ScenarioContext): string {
  const path = join(ctx.work, 'watches.yaml');
  const chart = join(ctx.root, 'charts/nginx');
  writeFileSync(path, `- group: demo.example.com\n  version: v1alpha1\n  kind: Nginx\n  chart: ${chart}\n`);
  return path;
}

/** Starts one operator for `namespace` with its log in the work folder. */
export function operatorFor(
  ctx: ScenarioContext,
  o: { name: string; kubeconfig: string; watches: string; namespace: string; args?: string[] },
): OperatorHandle {
  return startOperator({
    root: ctx.root,
    kubeconfig: o.kubeconfig,
    watchesFile: o.watches,
    helm: ctx.helm,
    env: { WATCH_NAMESPACE: o.namespace },
    logFile: join(ctx.work, `${o.name}.log`),
    ...(o.args ? { args: o.args } : {}),
  });
}

/** One desired state of one CR: what its Deployment must show once the change is applied. */
export interface Change {
  readonly namespace: string;
  readonly name: string;
  readonly tag: string;
  readonly replicas: number;
  /** performance.now() when it was written. */
  readonly at: number;
}

/** Makes changes with unique markers and remembers each CR's latest one. */
export class Changes {
  readonly latest = new Map<string, Change>();
  readonly #k: Kube;
  #n = 0;
  constructor(k: Kube) {
    this.#k = k;
  }

  #next(namespace: string, name: string): Change {
    this.#n++;
    return { namespace, name, tag: `chaos-${this.#n}`, replicas: 1 + (this.#n % 3), at: 0 };
  }

  #spec = (c: Change) => ({ replicaCount: c.replicas, image: { tag: c.tag } });

  async create(namespace: string, name: string): Promise<Change> {
    const c = this.#next(namespace, name);
    await crs(this.#k, namespace).create(name, this.#spec(c));
    return this.#remember({ ...c, at: performance.now() });
  }

  async patch(namespace: string, name: string): Promise<Change> {
    const c = this.#next(namespace, name);
    await crs(this.#k, namespace).patchSpec(name, this.#spec(c));
    return this.#remember({ ...c, at: performance.now() });
  }

  #remember(c: Change): Change {
    this.latest.set(`${c.namespace}/${c.name}`, c);
    return c;
  }
}

/** Whether `c` is applied: the CR Deployed at its current generation with this spec, and the Deployment shows it. */
export async function isApplied(k: Kube, c: Change): Promise<boolean> {
  const cr = await crs(k, c.namespace).get(c.name);
  const tag = (cr?.spec?.image as { tag?: string } | undefined)?.tag;
  if (!cr || tag !== c.tag || !deployedAtGeneration(cr)) return false;
  const d = await k.apps.readNamespacedDeployment({ name: `${c.name}-nginx`, namespace: c.namespace });
  return d.spec?.replicas === c.replicas && d.spec.template.spec?.containers[0]?.image === `nginx:${c.tag}`;
}

/** performance.now() when `c` was first seen applied, or undefined when not within `timeoutMs`. */
export async function appliedAt(
  k: Kube,
  c: Change,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<number | undefined> {
  const what = `${c.namespace}/${c.name} at ${c.tag}`;
  return until(what, async () => (await isApplied(k, c)) && performance.now(), {
    timeoutMs,
    everyMs: 250,
    signal,
  }).catch((err: unknown) => {
    if (signal.aborted) throw err;
    return undefined;
  });
}

/** 'running', or the exit code of an operator that is gone. */
export async function exitState(op: OperatorHandle): Promise<string> {
  const code = await Promise.race([op.exited, new Promise<'running'>((r) => setImmediate(() => r('running')))]);
  return code === 'running' ? code : `exited (${code})`;
}
