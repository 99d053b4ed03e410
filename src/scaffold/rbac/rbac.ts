// `helm-operator generate rbac` and the RBAC part of `create api`: renders each watched chart with `helm template`
// (its default values, each sample of its kind and any --values files, for the Kubernetes version kube-version.ts
// picks), derives the manager ClusterRole (config/rbac/role.yaml) from the union, and writes each kind's
// admin/editor/viewer helper roles. Called by api.ts and src/cmd/tools.ts. Never drops a rule of role.yaml it
// cannot derive (kept, with a warning saying whose it is; only its own default rules for a chart that did not render
// go once unneeded) and never writes the hand-written extra_role.yaml once it exists.
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadWatches } from '../../config/watches.js';
import { parseAllDocuments } from '../../config/yaml.js';
import { isRecord } from '../../core/guards.js';
import { enableProjectValuesFrom, projectValuesFrom } from '../api/project-values-from.js';
import { appendKustomizationResource, writeFiles } from '../files.js';
import { PATHS } from '../templates/context.js';
import { extraRoleFiles } from '../templates/rbac.js';
import { keepRules } from './kept-rules.js';
import { type RbacDeps, rulesForKind } from './kind-rules.js';
import { pluralize } from './kinds.js';
import { resolveRenderVersion } from './kube-version.js';
import { readManagerRules, readManagerSections, writeManagerRole } from './role-files.js';
import { allRules, normalizeSections } from './rule-origins.js';
import { baseRules, type PolicyRule, type RuleSection, valuesFromRules } from './rules.js';
import { checkValuesFlags, type ValuesFileFlag, valueSetsFor } from './value-sets.js';

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
  const sections: RuleSection[] = [{ rules: [...baseRules(), ...(valuesFrom ? valuesFromRules() : [])] }];
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
      sections.push({ rules: got.rules }, ...got.sections);
      warnings.push(...got.warnings);
    }
  } finally {
    await rm(tmpDir, { recursive: true, force: true });
  }
  const created = await ensureExtraRole(projectDir, signal);
  const derived = normalizeSections(sections);
  const extra = await readManagerRules(projectDir, PATHS.extraRole);
  const kept = keepRules(await readManagerSections(projectDir), [...allRules(derived), ...extra]);
  warnings.push(...kept.warnings);
  const written = await writeManagerRole(projectDir, [...derived, ...kept.kept]);
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
