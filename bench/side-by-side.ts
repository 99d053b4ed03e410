// Formats the side-by-side table of bench/operator-bench.ts: each operator figure next to its physical floors (helm
// run directly, kubectl apply --server-side of the rendered manifest) as ratios. Pure; called once at the end of the
// bench; never measures anything itself.
import { mib } from './kit.ts';
import type { FloorRun, Floors } from './phases/floors.ts';

/** What the operator did, measured by the bench (CPU = the operator process plus the helm processes it started). */
export interface OperatorFigures {
  readonly sequential: readonly number[];
  readonly create: Omit<FloorRun, 'cpuTool'> & { readonly cpu: number };
  readonly upgrade: Omit<FloorRun, 'cpuTool'> & { readonly cpu: number };
  readonly remove: Omit<FloorRun, 'cpuTool' | 'latencies'> & { readonly cpu: number };
  /** Per replica. */
  readonly rssMiB: readonly number[];
  readonly idleCpuPercent: number;
}

export interface SideBySideOptions {
  readonly crs: number;
  readonly concurrency: number;
  readonly operator: OperatorFigures;
  readonly floors: Floors;
}

export const percentile = (xs: readonly number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)] ?? Number.NaN;
const ms = (x: number) =>
  Number.isFinite(x) ? (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`) : '-';
const s = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)} s` : '-');
const ratio = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '-';
const p50p95 = (xs: readonly number[]) => `${ms(percentile(xs, 0.5))} / ${ms(percentile(xs, 0.95))}`;
const ratios = (a: readonly number[], b: readonly number[]) =>
  `${ratio(percentile(a, 0.5), percentile(b, 0.5))} / ${ratio(percentile(a, 0.95), percentile(b, 0.95))}`;

type Row = readonly [string, string, string, string, string, string];

/** One table: | figure | operator | helm directly | ratio | kubectl apply --server-side | ratio |. */
export function sideBySide(o: SideBySideOptions): string {
  const { operator: op, floors: f, crs: n } = o;
  const { helm: h, kubectl: k } = f;
  const latency = (label: string, a: readonly number[], hx: readonly number[], kx: readonly number[]): Row => [
    label,
    p50p95(a),
    p50p95(hx),
    ratios(a, hx),
    p50p95(kx),
    ratios(a, kx),
  ];
  const wall = (label: string, a: number, hx: number, kx: number): Row => [
    label,
    ms(a),
    ms(hx),
    ratio(a, hx),
    ms(kx),
    ratio(a, kx),
  ];
  const cpu = (label: string, a: number, hx: number, kx: number): Row => [
    label,
    s(a),
    s(hx),
    ratio(a, hx),
    s(kx),
    ratio(a, kx),
  ];
  const rows: Row[] = [
    latency(
      `1 release, one at a time (${op.sequential.length}×): p50 / p95`,
      op.sequential,
      h.sequential,
      k.sequential,
    ),
    wall(`${n} at once → all deployed`, op.create.wallMs, h.create.wallMs, k.create.wallMs),
    latency(`${n} at once, each release: p50 / p95`, op.create.latencies, h.create.latencies, k.create.latencies),
    cpu(
      `${n} at once: CPU of operator + helm (floors: of helm / kubectl)`,
      op.create.cpu,
      h.create.cpuTool,
      k.create.cpuTool,
    ),
    cpu(`${n} at once: kube-apiserver CPU`, op.create.cpuApiserver, h.create.cpuApiserver, k.create.cpuApiserver),
    wall(
      `${n} upgrades at once (a value changed) → all deployed`,
      op.upgrade.wallMs,
      h.upgrade.wallMs,
      k.upgrade.wallMs,
    ),
    latency(`${n} upgrades, each release: p50 / p95`, op.upgrade.latencies, h.upgrade.latencies, k.upgrade.latencies),
    cpu(`${n} upgrades: CPU of operator + helm`, op.upgrade.cpu, h.upgrade.cpuTool, k.upgrade.cpuTool),
    cpu(`${n} upgrades: kube-apiserver CPU`, op.upgrade.cpuApiserver, h.upgrade.cpuApiserver, k.upgrade.cpuApiserver),
    wall(`delete all ${n} → gone (floors: uninstall / delete)`, op.remove.wallMs, h.remove.wallMs, k.remove.wallMs),
    cpu(`delete all ${n}: CPU of operator + helm`, op.remove.cpu, h.remove.cpuTool, k.remove.cpuTool),
    cpu(`delete all ${n}: kube-apiserver CPU`, op.remove.cpuApiserver, h.remove.cpuApiserver, k.remove.cpuApiserver),
    [`operator RSS, ${n} settled CRs`, mib(op.rssMiB), '- (no resident process)', '-', '-', '-'],
    [`idle CPU, ${n} settled CRs`, `${op.idleCpuPercent.toFixed(2)} % of a core`, '0 (nothing runs)', '-', '0', '-'],
  ];
  return [
    `| figure (${n} releases, ${o.concurrency} at a time) | operator | helm directly | operator ÷ helm | kubectl apply --server-side | operator ÷ kubectl |`,
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
