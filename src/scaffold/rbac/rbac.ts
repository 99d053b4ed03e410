// `helm-operator generate rbac` and the RBAC part of `create api`: renders each watched chart with `helm template`
// (its default values, each sample of its kind and any --values files, for the Kubernetes version kube-version.ts
// picks), derives the manager ClusterRole (config/rbac/role.yaml) from the union, and writes each kind's
// admin/editor/viewer helper roles. Called by api.ts and src/cmd/tools.ts. Never drops a rule of role.yaml it
// cannot derive (kept, with a warning) and never writes the hand-written extra_role.yaml once it exists.
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadWatches } from '../../config/watches.js';
import { parseAllDocuments } from '../../config/yaml.js';
import { isRecord } from '../../core/guards.js';
import { HelmCommandError } from '../../helm/errors.js';
import type { HelmChartClient } from '../../helm/types.js';
import { enableProjectValuesFrom, projectValuesFrom } from '../api/project-values-from.js';
import { appendKustomizationResource, writeFiles } from '../files.js';
import { PATHS } from '../templates/context.js';
import { extraRoleFiles } from '../templates/rbac.js';
import { keptRulesWarning, rulesNotDerived } from './kept-rules.js';
import { pluralize } from './kinds.js';
import { chartRenderError, type RenderVersion, renderVersion, resolveRenderVersion } from './kube-version.js';
import { readManagerRules, writeManagerRole } from './role-files.js';
import {
  baseRules,
  chartRules,
  customResourceRules,
  type DiscoverKind,
  mergeRules,
  type PolicyRule,
  valuesFromRules,
} from './rules.js';
import { checkValuesFlags, DEFAULTS, type ValueSet, type ValuesFileFlag, valueSetsFor } from './value-sets.js';

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
  readonly rules: PolicyRule[];
  readonly warnings: string[];
}

/**
 * The rules one watched kind needs: its CRs plus everything its chart renders with each of `values` (the chart's
 * defaults when absent), unioned.
 */
export async function rulesForKind(input: KindRbacInput, deps: RbacDeps, signal: AbortSignal): Promise<RulesResult> {
  const rules = customResourceRules(input.group, input.plural);
  const warnings: string[] = [];
  const rendered = new Set<string>();
  for (const values of input.values ?? [DEFAULTS]) {
    const manifest = await render(input, values, deps, signal);
    const chart = await chartRules({ chart: input.chartLabel, manifest, discover: deps.discover }, signal);
    rules.push(...chart.rules);
    for (const w of chart.warnings) if (!warnings.includes(w)) warnings.push(w);
    for (const k of chart.kinds) rendered.add(k.slice(k.lastIndexOf(' ') + 1));
  }
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
  return { rules, warnings };
}

async function render(input: KindRbacInput, values: ValueSet, deps: RbacDeps, signal: AbortSignal): Promise<string> {
  const kube = input.kubeVersion ?? renderVersion();
  try {
    return await deps.helm.template({
      chart: input.chartDir,
      release: 'release-name',
      namespace: 'default',
      includeCrds: true,
      kubeVersion: kube.version,
      ...(values.file === undefined ? {} : { valuesFiles: [values.file] }),
      signal,
    });
  } catch (err) {
    if (!(err instanceof HelmCommandError) || err.failure.canceled) throw err;
    throw chartRenderError(input.chartLabel, err, kube, values.with);
  }
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
  /** Project-relative paths written besides the role (the extra role and its binding, for an older project). */
  readonly created: string[];
}

export interface GenerateRbacOptions {
  readonly projectDir: string;
  /** `--kube-version`, normalised: charts are rendered for it instead of the cluster's or the default version. */
  readonly kubeVersion?: string | undefined;
  /** `--values-from`: record it in PROJECT first (read access to ConfigMaps and Secrets, see valuesFromRules). */
  readonly valuesFrom?: boolean | undefined;
  /** `--values`: more values files to render the charts with (all of them, or one kind's). */
  readonly valuesFiles?: readonly ValuesFileFlag[] | undefined;
}

/**
 * Regenerates config/rbac/role.yaml from every watches.yaml entry (the base rules, each kind's CR rules and its
 * chart's rules over every rendering, unioned, plus valuesFromRules when PROJECT says `valuesFrom: true`): the
 * command to re-run after a chart or a sample changes. The file's metadata and header are kept, and so is every
 * rule of it that nothing derives and extra_role.yaml does not hold (named in a warning). An older project gets the
 * empty extra role and its binding.
 */
export async function generateRbac(
  opts: GenerateRbacOptions,
  deps: RbacDeps,
  signal: AbortSignal,
): Promise<GenerateRbacResult> {
  const { projectDir } = opts;
  const { watches } = loadWatches(join(projectDir, PATHS.watches), { env: {}, cwd: projectDir });
  const valuesFiles = opts.valuesFiles ?? [];
  await checkValuesFlags(
    valuesFiles,
    watches.map((w) => w.kind),
  );
  const kubeVersion = await resolveRenderVersion(opts.kubeVersion, deps.discover, signal);
  if (opts.valuesFrom) await enableProjectValuesFrom(projectDir, signal);
  const valuesFrom = await projectValuesFrom(projectDir, signal);
  const rules: PolicyRule[] = [...baseRules(), ...(valuesFrom ? valuesFromRules() : [])];
  const warnings: string[] = [];
  const tmpDir = await mkdtemp(join(tmpdir(), 'helm-operator-rbac-'));
  try {
    for (const w of watches) {
      signal.throwIfAborted();
      const plural = (await crdPlural(projectDir, w.group, w.kind)) ?? pluralize(w.kind);
      const chartLabel = relative(projectDir, w.chart) || w.chart;
      const values = await valueSetsFor({ projectDir, group: w.group, kind: w.kind, valuesFiles, tmpDir }, signal);
      const got = await rulesForKind(
        { group: w.group, kind: w.kind, plural, chartDir: w.chart, chartLabel, kubeVersion, values },
        deps,
        signal,
      );
      rules.push(...got.rules);
      warnings.push(...got.warnings);
    }
  } finally {
    await rm(tmpDir, { recursive: true, force: true });
  }
  const created = await ensureExtraRole(projectDir, signal);
  const merged = mergeRules(rules);
  const kept = rulesNotDerived(await readManagerRules(projectDir), [
    ...merged,
    ...(await readManagerRules(projectDir, PATHS.extraRole)),
  ]);
  if (kept.length > 0) warnings.push(keptRulesWarning(kept));
  const written = mergeRules([...merged, ...kept]);
  await writeManagerRole(projectDir, written);
  return { file: PATHS.managerRole, rules: written, warnings, created };
}

/**
 * An older project (no extra_role.yaml yet) gets the empty extra role and its binding, listed in config/rbac's
 * kustomization. A project that has the file, or no config/rbac kustomization, is left alone.
 */
async function ensureExtraRole(projectDir: string, signal: AbortSignal): Promise<string[]> {
  const exists = await access(join(projectDir, PATHS.extraRole)).then(
    () => true,
    () => false,
  );
  const kustomization = await readFile(join(projectDir, PATHS.rbacKustomization), 'utf8').catch(() => undefined);
  if (exists || kustomization === undefined) return [];
  const files = extraRoleFiles();
  let text = kustomization;
  for (const path of Object.keys(files)) {
    text = appendKustomizationResource(text, path.slice(PATHS.rbac.length + 1), PATHS.rbacKustomization);
  }
  const created = await writeFiles(projectDir, files, { force: false, signal });
  await writeFiles(projectDir, { [PATHS.rbacKustomization]: text }, { force: true, signal });
  return [...created.written, PATHS.rbacKustomization];
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
