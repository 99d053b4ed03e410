// Pure parts of the "kills" chaos scenario: a seeded random source, the CR specs it writes, the churn operation it
// picks next and the values each CR's objects must end with. Used by index.ts; does no I/O and keeps
// no state beyond what its callers hand it.

/** A seeded source of numbers in [0, 1) (mulberry32), so that a run can be repeated with its printed seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed from CHAOS_SEED (a whole number), else a fresh one. */
export function pickSeed(env: NodeJS.ProcessEnv): number {
  const given = env.CHAOS_SEED;
  if (given !== undefined && /^\d+$/.test(given)) return Number(given) >>> 0;
  return Math.floor(Math.random() * 2 ** 31);
}

export const between = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
export const pick = <T>(rand: () => number, items: readonly T[]): T | undefined =>
  items.length === 0 ? undefined : items[Math.floor(rand() * items.length)];

/** The sample chart's values that the scenario sets; missing ones are the chart's defaults. */
export interface NginxSpec {
  readonly replicaCount: number;
  readonly service: { readonly port: number };
  readonly index: string;
}

export function randomSpec(rand: () => number, tag: string): NginxSpec {
  return { replicaCount: between(rand, 1, 5), service: { port: between(rand, 8000, 8999) }, index: `page ${tag}` };
}

export type Op = 'change' | 'delete' | 'create';

/** The next churn operation: mostly spec changes; creates and deletes keep the live count near `target`. */
export function nextOp(rand: () => number, live: number, target: number): Op {
  const r = rand();
  if (live <= Math.max(1, Math.floor(target / 2))) return r < 0.5 ? 'create' : 'change';
  if (live >= target + Math.ceil(target / 2)) return r < 0.5 ? 'delete' : 'change';
  return r < 0.55 ? 'change' : r < 0.775 ? 'delete' : 'create';
}

/** What the objects of a CR with spec `spec` must show (the chart's defaults fill what the spec leaves out). */
export function expected(spec: Record<string, unknown> | undefined): {
  replicas: number;
  port: number;
  index: string;
} {
  const s = (spec ?? {}) as Partial<NginxSpec>;
  return {
    replicas: s.replicaCount ?? 1,
    port: s.service?.port ?? 80,
    index: s.index ?? 'Hello from the helm-operator demo',
  };
}

export interface Plan {
  readonly crs: number;
  readonly kills: number;
  /** Random pause before each kill, in ms. */
  readonly killDelayMs: readonly [number, number];
  /** Random pause between two churn operations, in ms. */
  readonly churnDelayMs: readonly [number, number];
  /** Convergence deadline after the last kill, in ms. */
  readonly deadlineMs: number;
}

export const plan = (short: boolean): Plan =>
  short
    ? { crs: 10, kills: 4, killDelayMs: [1_500, 5_000], churnDelayMs: [250, 1_200], deadlineMs: 60_000 }
    : { crs: 50, kills: 20, killDelayMs: [1_500, 7_000], churnDelayMs: [250, 1_500], deadlineMs: 120_000 };
