// One operator per test file, for the failing test chart: registers beforeAll/afterAll that create a CRD and a
// namespace, start the operator watching only that namespace, and at the end delete every CR the file created
// (while the operator runs, so releases are uninstalled), stop the operator and remove CRD and namespace.
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { createTestNamespace, isGone, type TestKube, testKube } from './kube.js';
import {
  crClient,
  createTestCrd,
  FAILING_CHART,
  type OperatorProcess,
  runCleanups,
  startOperator,
  watchesYaml,
} from './operator.js';

export const POLL = { timeout: 60_000, interval: 250 } as const;

export interface OperatorFixture {
  readonly kube: TestKube;
  readonly ns: string;
  readonly op: OperatorProcess;
  readonly crs: ReturnType<typeof crClient>;
  /** Creates a CR that the fixture deletes at the end. */
  create(name: string, spec: unknown, annotations?: Record<string, string>): Promise<void>;
}

export function useOperatorFixture(kindName: string, nsPrefix: string): OperatorFixture {
  const names = new Set<string>();
  const cleanups: (() => Promise<unknown>)[] = [];
  const state: Partial<Omit<OperatorFixture, 'create'>> = {};
  const need = <K extends keyof typeof state>(k: K): NonNullable<(typeof state)[K]> => {
    const v = state[k];
    if (v === undefined || v === null) throw new Error(`the operator fixture is not set up yet (${String(k)})`);
    return v as NonNullable<(typeof state)[K]>;
  };

  beforeAll(async () => {
    const kube = testKube();
    const [kind, deleteCrd] = await createTestCrd(kube, kindName);
    const [ns, deleteNs] = await createTestNamespace(kube, nsPrefix);
    cleanups.push(deleteCrd, deleteNs);
    const crs = crClient(kube, kind, ns);
    const op = startOperator({
      watches: watchesYaml([{ ...kind, chart: FAILING_CHART }]),
      env: { WATCH_NAMESPACE: ns },
    });
    Object.assign(state, { kube, ns, crs, op });
    cleanups.push(async () => {
      for (const name of names) await crs.delete(name);
      for (const name of names) {
        await vi.waitFor(async () => expect(await isGone(() => crs.get(name))).toBe(true), POLL);
      }
      await op.stop();
    });
  });

  afterAll(async () => {
    await runCleanups(cleanups);
  });

  return {
    get kube() {
      return need('kube');
    },
    get ns() {
      return need('ns');
    },
    get op() {
      return need('op');
    },
    get crs() {
      return need('crs');
    },
    async create(name, spec, annotations) {
      names.add(name);
      await need('crs').create(name, spec, annotations ? { annotations } : {});
    },
  };
}
