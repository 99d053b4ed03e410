// `helm-operator generate rbac` and the RBAC part of `create api`: renders each watched chart with `helm template`
// (default values, for the Kubernetes version kube-version.ts picks), derives the manager ClusterRole
// (config/rbac/role.yaml) from it, and writes each kind's admin/editor/viewer helper roles. Called by api.ts and
// src/cmd/tools.ts. Never writes a rule it could not derive.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { loadWatches } from '../../config/watches.js';
import { parseAllDocuments } from '../../config/yaml.js';
import { isRecord } from '../../core/guards.js';
import { HelmCommandError } from '../../helm/errors.js';
import type { HelmChartClient } from '../../helm/types.js';
import { enableProjectValuesFrom, projectValuesFrom } from '../api/project-values-from.js';
import { ScaffoldError } from '../errors.js';
import { PATHS } from '../templates/context.js';
import { pluralize } from './kinds.js';
import {
  chartRenderError,
  DEFAULT_KUBE_VERSION,
  parseKubeVersionFlag,
  type RenderVersion,
  renderVersion,
  resolveRenderVersion,
} from './kube-version.js';
import { writeManagerRole } from './role-files.js';
import {
  baseRules,
  chartRules,
  customResourceRules,
  type DiscoverKind,
  mergeRules,
  type PolicyRule,
  valuesFromRules,
} from './rules.js';

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
}

export interface RulesResult {
  readonly rules: PolicyRule[];
  readonly warnings: string[];
}

/** The rules one watched kind needs: its CRs plus everything its chart renders with default values. */
export async function rulesForKind(input: KindRbacInput, deps: RbacDeps, signal: AbortSignal): Promise<RulesResult> {
  const kube = input.kubeVersion ?? renderVersion();
  let manifest: string;
  try {
    manifest = await deps.helm.template({
      chart: input.chartDir,
      release: 'release-name',
      namespace: 'default',
      includeCrds: true,
      kubeVersion: kube.version,
      signal,
    });
  } catch (err) {
    if (!(err instanceof HelmCommandError) || err.failure.canceled) throw err;
    throw chartRenderError(input.chartLabel, err, kube);
  }
  const chart = await chartRules({ chart: input.chartLabel, manifest, discover: deps.discover }, signal);
  const rendered = new Set(chart.kinds.map((k) => k.slice(k.lastIndexOf(' ') + 1)));
  const unrendered = [...(await templateKinds(input.chartDir))].filter((k) => !rendered.has(k)).sort();
  const warnings = [
    ...chart.warnings,
    ...(unrendered.length === 0
      ? []
      : [
          `${input.chartLabel}: the rules cover what the chart renders with its default values; its templates also ` +
            `declare ${unrendered.join(', ')}, which CRs can enable through values: before such CRs are created, grant ` +
            'those kinds to the manager in a ClusterRole of your own bound to its ServiceAccount (generate rbac rewrites ' +
            `${PATHS.managerRole}), or reconciling them fails with "forbidden"`,
        ]),
  ];
  return { rules: [...customResourceRules(input.group, input.plural), ...chart.rules], warnings };
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

export interface GenerateRbacResult {
  /** Project-relative path of the manager role. */
  readonly file: string;
  readonly rules: PolicyRule[];
  readonly warnings: string[];
}

export interface GenerateRbacOptions {
  readonly projectDir: string;
  /** `--kube-version`, normalised: charts are rendered for it instead of the cluster's or the default version. */
  readonly kubeVersion?: string | undefined;
  /** `--values-from`: record it in PROJECT first (read access to ConfigMaps and Secrets, see valuesFromRules). */
  readonly valuesFrom?: boolean | undefined;
}

/**
 * Regenerates config/rbac/role.yaml from every watches.yaml entry (the base rules, each kind's CR rules and its
 * chart's rules, unioned, plus valuesFromRules when PROJECT says `valuesFrom: true`): the command to re-run after a
 * chart changes. The file's metadata and header are kept.
 */
export async function generateRbac(
  opts: GenerateRbacOptions,
  deps: RbacDeps,
  signal: AbortSignal,
): Promise<GenerateRbacResult> {
  const { projectDir } = opts;
  const { watches } = loadWatches(join(projectDir, PATHS.watches), { env: {}, cwd: projectDir });
  const kubeVersion = await resolveRenderVersion(opts.kubeVersion, deps.discover, signal);
  if (opts.valuesFrom) await enableProjectValuesFrom(projectDir, signal);
  const valuesFrom = await projectValuesFrom(projectDir, signal);
  const rules: PolicyRule[] = [...baseRules(), ...(valuesFrom ? valuesFromRules() : [])];
  const warnings: string[] = [];
  for (const w of watches) {
    signal.throwIfAborted();
    const plural = (await crdPlural(projectDir, w.group, w.kind)) ?? pluralize(w.kind);
    const chartLabel = relative(projectDir, w.chart) || w.chart;
    const got = await rulesForKind(
      { group: w.group, kind: w.kind, plural, chartDir: w.chart, chartLabel, kubeVersion },
      deps,
      signal,
    );
    rules.push(...got.rules);
    warnings.push(...got.warnings);
  }
  const merged = mergeRules(rules);
  await writeManagerRole(projectDir, merged);
  return { file: PATHS.managerRole, rules: merged, warnings };
}

/** `names.plural` of the project's CRD for group/kind in config/crd/bases, when there is one. */
async function crdPlural(projectDir: string, group: string, kind: string): Promise<string | undefined> {
  const dir = join(projectDir, PATHS.crdBases);
  for (const file of (await readdir(dir).catch(() => [] as string[])).sort()) {
    if (!/\.ya?ml$/.test(file)) continue;
    for (const doc of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      const crd: unknown = doc.errors.length === 0 ? doc.toJS() : undefined;
      const spec = isRecord(crd) && isRecord(crd.spec) ? crd.spec : {};
      const names = isRecord(spec.names) ? spec.names : {};
      if (spec.group === group && names.kind === kind && typeof names.plural === 'string') return names.plural;
    }
  }
  return undefined;
}

export const GENERATE_RBAC_USAGE = `Usage: helm-operator generate rbac [--kube-version=X.Y.Z] [--values-from]

Regenerates config/rbac/role.yaml (the manager ClusterRole) from every entry of watches.yaml: the operator's own
rules, each kind's CR rules, and exact verbs on every kind its chart renders with default values ("helm template").
Run it in the project directory after changing a chart. Kinds that are neither standard Kubernetes kinds nor defined
by the chart's CRDs are looked up in the cluster when one is reachable, and are an error otherwise.

Flags:
  --kube-version string   the Kubernetes version charts are rendered for (default: the cluster's when one answers,
                          else ${DEFAULT_KUBE_VERSION})
  --values-from           also let the operator read (get, list, watch) ConfigMaps and Secrets, for CRs that take
                          chart values from them (helm.sdk.operatorframework.io/values-from); recorded in PROJECT,
                          which every later generate rbac follows
`;

/** `generate rbac` takes `--kube-version` and `--values-from`; `cwd` is the project directory. */
export function parseGenerateRbacArgs(argv: readonly string[], cwd: string): GenerateRbacOptions {
  let kubeVersion: string | undefined;
  let valuesFrom = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--values-from' || arg === '--values-from=true') {
      valuesFrom = true;
      continue;
    }
    const m = /^--kube-version(?:=(.*))?$/s.exec(arg);
    if (m === null) {
      throw new ScaffoldError(
        `unexpected argument ${JSON.stringify(arg)}: generate rbac takes only --kube-version and --values-from; run it in the project directory`,
        'SCAFFOLD_BAD_ARGS',
      );
    }
    const value = m[1] ?? argv[++i];
    if (value === undefined) throw new ScaffoldError('flag needs an argument: --kube-version', 'SCAFFOLD_BAD_ARGS');
    kubeVersion = parseKubeVersionFlag(value);
  }
  return {
    projectDir: cwd,
    ...(kubeVersion === undefined ? {} : { kubeVersion }),
    ...(valuesFrom ? { valuesFrom } : {}),
  };
}
