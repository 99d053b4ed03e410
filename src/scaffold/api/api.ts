// `helm-operator create api`: imports (or creates) a chart into charts/, then scaffolds its kind: watches.yaml entry,
// CRD, sample CR (checked against that CRD), helper roles, PROJECT resource and manager role rules. Called by
// src/cmd/tools.ts with a helm client that uses the user's helm configuration. Checks and renders everything (the chart
// from a staging copy, with any --values files) before writing project files; a failure leaves charts/ as it was.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import type { HelmChartClient } from '../../helm/types.js';
import { ApiExistsError, SampleRejectedError } from '../errors.js';
import { appendKustomizationResource, type FileSet, writeFiles } from '../files.js';
import { addProjectResource, readProject } from '../init/init.js';
import { rulesForKind } from '../rbac/kind-rules.js';
import { pluralize } from '../rbac/kinds.js';
import { resolveRenderVersion } from '../rbac/kube-version.js';
import { generateRbac } from '../rbac/rbac.js';
import { kindRoleFiles, readManagerSections, writeManagerRole } from '../rbac/role-files.js';
import { baseRules, type DiscoverKind, valuesFromRules } from '../rbac/rules.js';
import { checkValuesFlags, DEFAULTS, valuesFileSets } from '../rbac/value-sets.js';
import { crdFileName, readValuesSchema, renderCrd } from '../schema/crd.js';
import { PATHS } from '../templates/context.js';
import { classifyChart, createDefaultChart, type Progress, stageChart } from './chart.js';
import { type CommittedChart, commitChart, type PreparedChart, prepareChart } from './chart-place.js';
import { type CreateApiOptions, camelCase, checkGvk } from './flags.js';
import { enableProjectValuesFrom, projectValuesFrom } from './project-values-from.js';
import { parseValues, renderSample, sampleFileName } from './sample.js';
import { checkSample, type SampleProblem } from './sample-check.js';
import { applyOverrides, readOverrides } from './sample-values.js';
import { addWatchEntry } from './watches-entry.js';

export interface CreateApiDeps {
  /** A helm client with the user's configuration: createHelmCli({ binary, workDir, env: process.env, isolated: false }). */
  readonly helm: HelmChartClient;
  /**
   * Only when a cluster is reachable: resolves kinds that are neither built in nor defined by the chart's CRDs, and
   * tells the cluster's version, which the chart is rendered for unless --kube-version says otherwise.
   */
  readonly discover?: DiscoverKind | undefined;
  /** Where charts are unpacked before they are copied into the project. @default a new directory in os.tmpdir() */
  readonly tmpDir?: string;
  /** Told when a slow step (helm pull, helm dependency build) starts and ends. @default silent */
  readonly progress?: Progress;
}

export interface CreateApiResult {
  /** Fully qualified group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /** Project-relative chart directory, e.g. `charts/nginx`. */
  readonly chart: string;
  /** Project-relative paths written or edited. */
  readonly written: string[];
  /** Things the user should know: schema parts loosened, kinds not covered by default values, RBAC escalation. */
  readonly warnings: string[];
}

export async function createApi(
  opts: CreateApiOptions,
  deps: CreateApiDeps,
  signal: AbortSignal,
): Promise<CreateApiResult> {
  const dir = opts.projectDir;
  const project = await readProject(dir, signal);
  const tmp = deps.tmpDir ?? (await mkdtemp(join(tmpdir(), 'helm-operator-create-api-')));
  let committed: CommittedChart | undefined;
  try {
    // 1. Find the chart (pulling or unpacking it into tmp) to learn its name, which gives the default kind.
    const source =
      opts.helmChart === undefined
        ? undefined
        : await classifyChart(opts.helmChart, { repo: opts.helmChartRepo, version: opts.helmChartVersion, cwd: dir });
    const staged = source === undefined ? undefined : await stageChart(source, tmp, deps.helm, signal, deps.progress);
    const kind = opts.kind ?? camelCase(staged?.meta.name ?? '');
    const group = opts.group ?? (staged === undefined ? undefined : 'charts');
    const version = opts.version ?? (staged === undefined ? undefined : 'v1alpha1');
    if (group === undefined)
      throw new ConfigError('--group is required when --helm-chart is not given (e.g. --group=cache)');
    if (version === undefined)
      throw new ConfigError('--version is required when --helm-chart is not given (e.g. --version=v1alpha1)');
    const plural = opts.plural ?? pluralize(kind);
    checkGvk({ group, version, kind, plural, domain: project.domain });
    const qualified = `${group}.${project.domain}`;
    const exists = project.resources.some((r) => r.group === group && r.version === version && r.kind === kind);
    if (exists && !opts.force) throw new ApiExistsError(`${qualified}/${version}, Kind=${kind}`);

    // 2. Stage the chart for charts/ with its dependencies (helm create makes a new one in place).
    const chartsDir = join(dir, PATHS.charts);
    const where = { force: opts.force, projectDir: dir };
    let prepared: PreparedChart;
    if (staged === undefined) {
      const made = await createDefaultChart(chartsDir, kind.toLowerCase(), where, deps.helm, signal);
      prepared = { dest: made.dir, dir: made.dir, mode: made.created ? 'created' : 'in-place' };
      committed = await commitChart(prepared, signal);
    } else {
      const sourceDir = source?.type === 'dir' ? source.path : undefined;
      prepared = await prepareChart(
        staged,
        chartsDir,
        { ...where, tmpDir: tmp, sourceDir },
        deps.helm,
        signal,
        deps.progress,
      );
    }
    const chart = relative(dir, prepared.dest).split('\\').join('/');

    // 3. Render everything (this is where an unknown kind stops us, before any project file changes).
    const valuesFiles = opts.valuesFiles ?? [];
    await checkValuesFlags(valuesFiles, [kind]);
    const fileSets = valuesFileSets(valuesFiles, kind, dir);
    const overrides = await readOverrides(fileSets, signal);
    const chartValues = await readFile(join(prepared.dir, 'values.yaml'), 'utf8').catch(() => '');
    const sample = renderSample({
      apiVersion: `${qualified}/${version}`,
      kind,
      chartPath: chart,
      valuesText: applyOverrides(chartValues, overrides),
      valuesFlags: overrides.map((o) => o.flag),
    });
    // values.yaml's keys are not required of CRs (helm fills them in); keys only --values sets are.
    const schema = await readValuesSchema(prepared.dir, parseValues(chartValues, chart));
    const sampleWarnings: string[] = [];
    if (schema.specSchema !== undefined) {
      const problems = checkSample(sample.values, schema.specSchema);
      const needed = problems.filter((p) => p.kind === 'rejected' && / is missing \(required\)$/.test(p.why));
      const rejected = problems.filter((p) => !needed.includes(p));
      if (rejected.length > 0) throw new SampleRejectedError(chart, rejected);
      if (needed.length > 0)
        sampleWarnings.push(missingValuesWarning(chart, sampleFileName(group, version, kind), needed));
    }
    const kubeVersion = await resolveRenderVersion(opts.kubeVersion, deps.discover, signal);
    const sampleFile = sampleFileName(group, version, kind);
    // With --values the sample differs from the defaults: render it too, as generate rbac will from config/samples.
    const specFile = join(tmp, 'sample-spec.json');
    if (overrides.length > 0) await writeFile(specFile, JSON.stringify(sample.values), { mode: 0o600, signal });
    const merged = {
      what: `the values of ${overrides.map((o) => o.flag).join(' and ')} over its defaults (the sample's spec)`,
      fix: 'fix those values files',
    };
    const sampleSets = overrides.length > 0 ? [{ with: merged, file: specFile }] : [];
    const values = [DEFAULTS, ...sampleSets, ...fileSets];
    const kindRules = await rulesForKind(
      { group: qualified, kind, plural, chartDir: prepared.dir, chartLabel: chart, kubeVersion, values },
      deps,
      signal,
    );
    // create api adds to the manager role (keeping hand-made rules); --force rebuilds it from watches.yaml below.
    const keptRules = opts.force ? [] : await readManagerSections(dir);
    const crdFile = crdFileName(qualified, plural);
    const roles = kindRoleFiles(qualified, kind, plural);
    const newFiles: FileSet = {
      [`${PATHS.crdBases}/${crdFile}`]: renderCrd({
        group: qualified,
        version,
        kind,
        plural,
        chartPath: chart,
        specSchema: schema.specSchema,
      }),
      [`${PATHS.samples}/${sampleFile}`]: sample.text,
      ...roles,
    };
    const watches = addWatchEntry(
      await readText(dir, PATHS.watches),
      { group: qualified, version, kind, chart },
      { force: opts.force },
    );
    const edits: Record<string, string> = {
      [PATHS.watches]: watches.text,
      [PATHS.crdKustomization]: appendKustomizationResource(
        await readText(dir, PATHS.crdKustomization),
        `bases/${crdFile}`,
        PATHS.crdKustomization,
      ),
      [PATHS.samplesKustomization]: appendKustomizationResource(
        await readText(dir, PATHS.samplesKustomization),
        sampleFile,
        PATHS.samplesKustomization,
      ),
    };
    let rbacKustomization = await readText(dir, PATHS.rbacKustomization);
    for (const path of Object.keys(roles)) {
      rbacKustomization = appendKustomizationResource(
        rbacKustomization,
        path.slice(PATHS.rbac.length + 1),
        PATHS.rbacKustomization,
      );
    }
    edits[PATHS.rbacKustomization] = rbacKustomization;

    // 4. Write: the chart (undone if the next step fails), new files (a conflict there writes nothing), then the
    // edits, PROJECT and the manager role.
    committed ??= await commitChart(prepared, signal);
    const created = await writeFiles(dir, newFiles, { force: opts.force, signal });
    const edited = await writeFiles(dir, edits, { force: true, signal });
    const done = committed;
    committed = undefined; // from here on the chart belongs to the project
    await done.finish();
    await addProjectResource(dir, { group, version, kind }, signal);
    if (opts.valuesFrom) await enableProjectValuesFrom(dir, signal);
    const warnings = [...schema.warnings, ...sample.warnings, ...sampleWarnings, ...kindRules.warnings];
    if (opts.force) {
      const regenerated = await generateRbac(
        { projectDir: dir, kubeVersion: opts.kubeVersion, valuesFiles },
        deps,
        signal,
      );
      for (const w of regenerated.warnings) if (!warnings.includes(w)) warnings.push(w);
    } else {
      const valuesFrom = (await projectValuesFrom(dir, signal)) ? valuesFromRules() : [];
      await writeManagerRole(dir, [
        { rules: [...baseRules(), ...valuesFrom] },
        ...keptRules,
        { rules: kindRules.rules },
        ...kindRules.sections,
      ]);
    }
    return {
      group: qualified,
      version,
      kind,
      plural,
      chart,
      written: [...created.written, ...edited.written, PATHS.project, PATHS.managerRole],
      warnings,
    };
  } catch (err) {
    await committed?.rollback();
    throw err;
  } finally {
    if (deps.tmpDir === undefined) await rm(tmp, { recursive: true, force: true });
  }
}

/** The sample lacks values that values.schema.json requires and values.yaml does not give: the chart needs values. */
function missingValuesWarning(chart: string, sampleFile: string, needed: readonly SampleProblem[]): string {
  const what = needed.map((p) => `${p.path}: ${p.why}`).join('; ');
  return (
    `${PATHS.samples}/${sampleFile} lacks values that ${chart} requires and its values.yaml does not give (${what}): ` +
    'the CRD requires them of every CR, so the API server rejects the sample until they are set there (or run ' +
    'create api --force again with --values FILE setting them)'
  );
}

async function readText(dir: string, path: string): Promise<string> {
  return readFile(join(dir, path), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
}
