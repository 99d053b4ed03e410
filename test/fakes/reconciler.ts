// The HelmReconciler of the unit tests with its defaults in one place: nginxCr() (a CR "apps/web" of the sample
// chart's demo.example.com/v1alpha1 Nginx kind), CrStore (that one CR in memory behind the CrAccess port: each write
// bumps its resourceVersion, and clearing the finalizers of a CR marked for deletion removes it, as the API server
// does) and reconcilerOptions() (the sample chart's watch, chartName nginx, no events, its own in-flight set, a 60 s
// period, a FakeClock at 2026-01-01 and the silent logger, under the test's ports and overrides), and CrShelf (several
// CRs behind one CrAccess, for uninstall batches).
// Test-only; touches no cluster and spawns nothing.
import { fileURLToPath } from 'node:url';
import type { Watch } from '../../src/config/watches.js';
import { silentLogger } from '../../src/core/logger.js';
import type { HelmReconcilerOptions } from '../../src/reconciler/options.js';
import type { CrAccess, CustomResource, HelmAppStatus } from '../../src/reconciler/types.js';
import { FakeClock } from './clock.js';

/** The sample chart (charts/nginx) the reconciler tests install. */
export const NGINX_CHART = fileURLToPath(new URL('../../charts/nginx', import.meta.url));

/** When the reconciler tests' clock starts. */
export const TEST_START_MS = Date.parse('2026-01-01T00:00:00Z');

/** An Nginx CR "apps/web" at resourceVersion 1, generation 1, with `metadata` merged in. */
export function nginxCr(spec: unknown = {}, metadata: Partial<CustomResource['metadata']> = {}): CustomResource {
  return {
    apiVersion: 'demo.example.com/v1alpha1',
    kind: 'Nginx',
    metadata: { name: 'web', namespace: 'apps', resourceVersion: '1', generation: 1, ...metadata },
    spec,
  };
}

/** What a CrStore reports of each write through its CrAccess, before storing it. */
export interface CrStoreHooks {
  readonly onFinalizers?: (finalizers: readonly string[]) => void;
  readonly onStatus?: (status: HelmAppStatus) => void;
}

/** One CR in memory and the CrAccess port over it; `cr` is undefined once it is deleted, and tests may set it. */
export class CrStore {
  cr: CustomResource | undefined;
  readonly access: CrAccess;

  constructor(cr: CustomResource, hooks: CrStoreHooks = {}) {
    this.cr = cr;
    this.access = {
      get: async () => this.cr,
      setFinalizers: async (o, finalizers) => {
        hooks.onFinalizers?.(finalizers);
        const next = this.bump(o, { metadata: { ...o.metadata, finalizers } });
        if (next.metadata.deletionTimestamp && finalizers.length === 0) this.cr = undefined;
        return next;
      },
      writeStatus: async (o, status) => {
        hooks.onStatus?.(status);
        return this.bump(o, { status });
      },
    };
  }

  /** The CR; throws once it is gone. */
  live(): CustomResource {
    if (!this.cr) throw new Error('the CR is gone');
    return this.cr;
  }

  /** Stores and returns `o` with `patch` applied and its resourceVersion one higher, as an API write does. */
  bump(o: CustomResource, patch: Partial<CustomResource>): CustomResource {
    const resourceVersion = String(Number(o.metadata.resourceVersion) + 1);
    this.cr = { ...o, ...patch, metadata: { ...o.metadata, ...(patch.metadata ?? {}), resourceVersion } };
    return this.cr;
  }

  /** Sets the CR's deletionTimestamp (five minutes in), as a delete of a CR with finalizers does. */
  markDeleted(): void {
    if (this.cr) this.cr = { ...this.cr, metadata: { ...this.cr.metadata, deletionTimestamp: '2026-01-01T00:05:00Z' } };
  }
}

/** Several CRs in memory by "namespace/name" behind one CrAccess port, with CrStore's write semantics. */
export class CrShelf {
  readonly #crs = new Map<string, CustomResource>();
  readonly access: CrAccess;

  constructor(crs: readonly CustomResource[]) {
    for (const cr of crs) this.put(cr);
    this.access = {
      get: async (namespace, name) => this.get(namespace, name),
      setFinalizers: async (o, finalizers) => {
        const next = this.bump(o, { metadata: { ...o.metadata, finalizers } });
        if (next.metadata.deletionTimestamp && finalizers.length === 0) this.#crs.delete(shelfKey(next));
        return next;
      },
      writeStatus: async (o, status) => this.bump(o, { status }),
    };
  }

  get(namespace: string, name: string): CustomResource | undefined {
    return this.#crs.get(`${namespace}/${name}`);
  }

  put(cr: CustomResource): void {
    this.#crs.set(shelfKey(cr), cr);
  }

  /** The CRs of `namespace` with a deletionTimestamp, as the manager's informers give them to a batch. */
  deleting(namespace: string): CustomResource[] {
    return [...this.#crs.values()].filter((c) => c.metadata.namespace === namespace && c.metadata.deletionTimestamp);
  }

  bump(o: CustomResource, patch: Partial<CustomResource>): CustomResource {
    const resourceVersion = String(Number(o.metadata.resourceVersion) + 1);
    const next = { ...o, ...patch, metadata: { ...o.metadata, ...(patch.metadata ?? {}), resourceVersion } };
    this.put(next);
    return next;
  }
}

const shelfKey = (cr: CustomResource) => `${cr.metadata.namespace ?? ''}/${cr.metadata.name}`;

/** The ports every reconciler needs, anything else to override, and fields of the watch to override. */
export type ReconcilerOverrides = Pick<HelmReconcilerOptions, 'crs' | 'releases' | 'helm'> &
  Partial<Omit<HelmReconcilerOptions, 'watch'>> & { readonly watch?: Partial<Watch> };

/** HelmReconciler options for the sample chart with the tests' defaults, under `overrides`. */
export function reconcilerOptions({ watch, ...overrides }: ReconcilerOverrides): HelmReconcilerOptions {
  return {
    watch: {
      group: 'demo.example.com',
      version: 'v1alpha1',
      kind: 'Nginx',
      chart: NGINX_CHART,
      watchDependentResources: false,
      overrideValues: {},
      ...watch,
    },
    chartName: 'nginx',
    events: { event: () => undefined },
    inFlight: new Set(),
    defaultReconcilePeriodMs: 60_000,
    clock: new FakeClock({ nowMs: TEST_START_MS }),
    logger: silentLogger,
    ...overrides,
  };
}
