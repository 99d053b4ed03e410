// The manager role's rules for one watched kind: its CRs plus what its chart renders (`helm template`) with each set
// of values, unioned; rules only a --values file needed are kept apart (marked in role.yaml), and a chart that renders
// with none of its values gets operator-sdk's default rules, marked for review, and a warning. Called by rbac.ts and
// api.ts; runs helm, reads the chart's templates, writes nothing.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HelmCommandError } from '../../helm/errors.js';
import type { HelmChartClient } from '../../helm/types.js';
import { PATHS } from '../templates/context.js';
import { describeRule } from './kept-rules.js';
import { chartRenderError, helmSaid, kubeVersionMismatch, type RenderVersion, renderVersion } from './kube-version.js';
import {
  chartRules,
  customResourceRules,
  type DiscoverKind,
  defaultChartRules,
  type PolicyRule,
  type RuleSection,
} from './rules.js';
import { DEFAULTS, type ValueSet } from './value-sets.js';

export interface RbacDeps {
  readonly helm: Pick<HelmChartClient, 'template'>;
  /** Only when a cluster is reachable: finds kinds that are neither built in nor defined by the chart. */
  readonly discover?: DiscoverKind | undefined;
}

export interface KindRbacInput {
  /** Fully qualified group. */
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  /** Absolute chart directory. */
  readonly chartDir: string;
  /** The chart as shown to the user, e.g. `charts/nginx`. */
  readonly chartLabel: string;
  /** What `helm template --kube-version` gets. @default DEFAULT_KUBE_VERSION */
  readonly kubeVersion?: RenderVersion | undefined;
  /** The renderings to union. @default [DEFAULTS], the chart's default values alone */
  readonly values?: readonly ValueSet[] | undefined;
}

export interface RulesResult {
  /** The CR rules and what the defaults and samples render. */
  readonly rules: PolicyRule[];
  /** Rules only a --values file needed, and the default rules of a chart that rendered with no values. */
  readonly sections: RuleSection[];
  readonly warnings: string[];
}

/**
 * The rules one watched kind needs: its CRs plus everything its chart renders with each of `values` (the chart's
 * defaults when absent), unioned. When the chart renders with its defaults, a sample or values file that breaks it
 * is an error (SCAFFOLD_CHART_RENDER); when it does not (it requires values), such failures are warnings, and if no
 * set renders at all the chart gets defaultChartRules(), marked, and a warning. A kubeVersion mismatch always throws.
 */
export async function rulesForKind(input: KindRbacInput, deps: RbacDeps, signal: AbortSignal): Promise<RulesResult> {
  const kube = input.kubeVersion ?? renderVersion();
  const rules = customResourceRules(input.group, input.plural);
  const sections: RuleSection[] = [];
  const warnings: string[] = [];
  const rendered = new Set<string>();
  const failed: { set: ValueSet; err: HelmCommandError }[] = [];
  const sets = input.values ?? [DEFAULTS];
  for (const set of sets) {
    const manifest = await render(input, set, kube, deps, signal).catch((err: unknown) => {
      if (!(err instanceof HelmCommandError) || err.failure.canceled) throw err;
      if (kubeVersionMismatch(err.failure.stderr) !== undefined) throw chartRenderError(input.chartLabel, err, kube);
      failed.push({ set, err });
      return undefined;
    });
    if (manifest === undefined) continue;
    const chart = await chartRules({ chart: input.chartLabel, manifest, discover: deps.discover }, signal);
    if (set.flag === undefined) rules.push(...chart.rules);
    else sections.push({ origin: { values: set.flag }, rules: chart.rules });
    for (const w of chart.warnings) if (!warnings.includes(w)) warnings.push(w);
    for (const k of chart.kinds) rendered.add(k.slice(k.lastIndexOf(' ') + 1));
  }
  const defaultsFailed = failed.some((f) => f.set === DEFAULTS);
  const [first] = failed;
  if (first !== undefined && !defaultsFailed) throw chartRenderError(input.chartLabel, first.err, kube, first.set.with);
  if (first !== undefined && failed.length === sets.length) {
    sections.push({ origin: { fallback: input.chartLabel }, rules: defaultChartRules() });
    warnings.push(fallbackWarning(input.chartLabel, failed, kube));
    return { rules, sections, warnings };
  }
  // The defaults failing while a sample or values file renders is the chart's design (it requires values): no word.
  for (const f of failed) if (f.set !== DEFAULTS) warnings.push(skippedWarning(input.chartLabel, f.set, f.err, kube));
  const unrendered = [...(await templateKinds(input.chartDir))].filter((k) => !rendered.has(k)).sort();
  if (unrendered.length > 0) {
    warnings.push(
      `${input.chartLabel}: the rules cover what the chart renders with its default values, the samples in ` +
        `${PATHS.samples} and any --values files; its templates also declare ${unrendered.join(', ')}, which CRs ` +
        'can enable through other values: before such CRs are created, enable them in a sample (or a file given ' +
        `to --values) and run generate rbac again, or add their rules to ${PATHS.extraRole}; otherwise reconciling ` +
        'them fails with "forbidden"',
    );
  }
  return { rules, sections, warnings };
}

/** A chart that rendered with none of its values: what helm said, what was written, what to review and do. */
function fallbackWarning(
  chart: string,
  failed: readonly { set: ValueSet; err: HelmCommandError }[],
  kube: RenderVersion,
) {
  const sets = failed.map((f) => f.set.with.what).join(', nor with ');
  const said = helmSaid(failed[0]?.err.failure.stderr ?? '', chart);
  return (
    `${chart} does not render with ${sets} for Kubernetes ${kube.version} (helm template: ${said}), so its RBAC ` +
    `rules cannot be derived: ${PATHS.managerRole} got operator-sdk's default rules for it ` +
    `(${defaultChartRules().map(describeRule).join('; ')}), marked with a comment. Review them before deploying: ` +
    'they may grant more than the chart needs, or miss a kind it renders. To derive exact rules, set the values the ' +
    `chart requires in its sample in ${PATHS.samples} (CRs need them too) and run helm-operator generate rbac, or ` +
    'run helm-operator generate rbac --values=<a values file that sets them>'
  );
}

/** A set of values that did not render, skipped because the chart also fails with its defaults (it needs values). */
function skippedWarning(chart: string, set: ValueSet, err: HelmCommandError, kube: RenderVersion): string {
  const said = helmSaid(err.failure.stderr, chart);
  return (
    `${chart} does not render with ${set.with.what} for Kubernetes ${kube.version} (helm template: ${said}): its ` +
    `rules are left out; ${set.with.fix}, as a CR with these values would fail the same way`
  );
}

async function render(
  input: KindRbacInput,
  values: ValueSet,
  kube: RenderVersion,
  deps: RbacDeps,
  signal: AbortSignal,
): Promise<string> {
  return deps.helm.template({
    chart: input.chartDir,
    release: 'release-name',
    namespace: 'default',
    includeCrds: true,
    kubeVersion: kube.version,
    ...(values.file === undefined ? {} : { valuesFiles: [values.file] }),
    signal,
  });
}

/** Kinds named at the start of a line (`kind: Ingress`) in the chart's templates, except helm test templates. */
async function templateKinds(chartDir: string): Promise<Set<string>> {
  const kinds = new Set<string>();
  const dir = join(chartDir, 'templates');
  const files = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  for (const file of files) {
    if (!/\.(ya?ml|tpl)$/.test(file) || file.split(/[\\/]/).includes('tests')) continue;
    const text = await readFile(join(dir, file), 'utf8').catch(() => '');
    for (const m of text.matchAll(/^kind:\s*([A-Z][A-Za-z0-9]*)\s*$/gm)) if (m[1] !== undefined) kinds.add(m[1]);
  }
  kinds.delete('List');
  return kinds;
}
