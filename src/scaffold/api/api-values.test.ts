import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findHelm, SKIP_REASON, scaffoldHelm } from '../../../test/support/scaffold-helm.js';
import { parse } from '../../config/yaml.js';
import type { HelmCli } from '../../helm/types.js';
import { runInit } from '../init/init.js';
import { generateRbac } from '../rbac/rbac.js';
import { parseValuesFlag } from '../rbac/value-sets.js';
import { createApi } from './api.js';
import { parseCreateApiArgs } from './flags.js';

const helmBin = findHelm();
const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'charts');
const NEEDS_VALUES = join(FIXTURES, 'needs-values');
const signal = () => new AbortController().signal;

let dir = '';
let project = '';
let helm: HelmCli;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'create-api-values-test-'));
  project = join(dir, 'project');
  await runInit({ dir: project, domain: 'example.com', projectName: 'demo', force: false }, signal());
  if (helmBin !== undefined) helm = await scaffoldHelm(helmBin, dir);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const read = (path: string) => readFile(join(project, path), 'utf8');
const create = (argv: string[]) =>
  createApi(parseCreateApiArgs(argv, project), { helm, tmpDir: join(dir, 'tmp') }, signal());
const regenerate = (...values: string[]) =>
  generateRbac(
    { projectDir: project, valuesFiles: values.map((v) => parseValuesFlag(v, project)) },
    { helm },
    signal(),
  );
const resources = async () =>
  (parse(await read('config/rbac/role.yaml')) as { rules: { apiGroups: string[]; resources: string[] }[] }).rules
    .flatMap((r) => r.resources.map((res) => `${r.apiGroups[0] === '' ? '' : `${r.apiGroups[0]}/`}${res}`))
    .sort();
const SAMPLE = 'config/samples/charts_v1alpha1_needsvalues.yaml';
const FALLBACK = '# default rules for charts/needs-values, which did not render: review them';

describe.skipIf(helmBin === undefined)(
  `create api and generate rbac on a chart that needs values ${helmBin === undefined ? SKIP_REASON : ''}`,
  { timeout: 60_000 },
  () => {
    it('scaffolds it without --values: a warning, default rules marked for review, no --debug advice', async () => {
      const result = await create([`--helm-chart=${NEEDS_VALUES}`]);
      const rendered = result.warnings.find((w) => w.includes('does not render'));
      expect(rendered).toMatch(
        /^charts\/needs-values does not render with its default values for Kubernetes v[\d.]+ \(helm template: .*missing property 'message'\), so its RBAC rules cannot be derived: config\/rbac\/role\.yaml got operator-sdk's default rules for it \(create, delete, get, list, patch, update, watch on configmaps, endpoints, .*\), marked with a comment\. Review them/,
      );
      expect(result.warnings.join('\n')).not.toMatch(/--debug/);
      expect(result.warnings).toContainEqual(
        expect.stringMatching(
          /^config\/samples\/charts_v1alpha1_needsvalues\.yaml lacks values that charts\/needs-values requires .*spec: message is missing/,
        ),
      );
      const role = await read('config/rbac/role.yaml');
      expect(role).toContain(FALLBACK);
      expect(await resources()).toEqual(expect.arrayContaining(['pods', 'apps/deployments', 'configmaps']));
      expect(existsSync(join(project, SAMPLE))).toBe(true);

      // The default rules are its own: a regeneration writes them again, with no "kept" or "hand-written" word.
      const again = await regenerate();
      expect(again.warnings.join('\n')).not.toMatch(/kept|hand-written|--debug/);
      expect(await read('config/rbac/role.yaml')).toBe(role);

      // Following the warning's advice (a values file that sets the message) gives exact rules instead.
      await writeFile(join(project, 'message.yaml'), 'message: hello\n');
      const exact = await regenerate('message.yaml');
      expect(exact.warnings).toContainEqual(
        expect.stringMatching(
          /^config\/rbac\/role\.yaml: removed the \d+ default rules an earlier run wrote for charts\/needs-values/,
        ),
      );
      expect(await read('config/rbac/role.yaml')).not.toContain('default rules for');
      expect(await resources()).not.toContain('pods');
    });

    it('renders it with --values for the sample, the CRD and the RBAC', async () => {
      await writeFile(join(dir, 'on.yaml'), 'message: hello\nservice:\n  enabled: true\n');
      const result = await create([`--helm-chart=${NEEDS_VALUES}`, `--values=${join(dir, 'on.yaml')}`]);
      expect(result.warnings.join('\n')).not.toMatch(/--debug|lacks values|default rules/);
      const sample = await read(SAMPLE);
      expect(sample).toContain(`with the values of --values=${join(dir, 'on.yaml')} set over them`);
      expect(sample).toContain('# An optional Service, off by default.');
      expect(parse(sample)).toMatchObject({ spec: { message: 'hello', service: { enabled: true, port: 80 } } });
      const crd = parse(await read('config/crd/bases/charts.example.com_needsvalueses.yaml'));
      expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.required).toEqual(['message']);
      expect(await resources()).toEqual(expect.arrayContaining(['configmaps', 'services']));
      expect(await resources()).not.toContain('pods');
      expect(await read('config/rbac/role.yaml')).not.toMatch(/generated for|default rules for/);

      // The sample now holds those values: generate rbac without --values derives the same rules.
      const role = await read('config/rbac/role.yaml');
      const again = await regenerate();
      expect(again.warnings.join('\n')).not.toMatch(/kept|hand-written/);
      expect(await read('config/rbac/role.yaml')).toBe(role);
    });

    it('says a rule generate rbac derived from an earlier --values file is that, and how to keep it', async () => {
      await writeFile(join(project, 'message.yaml'), 'message: hello\n');
      await create([`--helm-chart=${NEEDS_VALUES}`, '--values=message.yaml']);
      await writeFile(join(project, 'service.yaml'), 'message: hi\nservice:\n  enabled: true\n');
      const first = await regenerate('service.yaml');
      expect(first.warnings.join('\n')).not.toMatch(/kept/);
      const role = await read('config/rbac/role.yaml');
      expect(role).toMatch(
        /\n# generated for --values=service\.yaml: [^\n]*\n- apiGroups:\n {2}- ""\n {2}resources:\n {2}- services\n/,
      );

      for (let run = 0; run < 2; run++) {
        const later = await regenerate();
        expect(later.warnings).toEqual([
          expect.stringMatching(/^charts\/needs-values: the rules cover .*its templates also declare Service/),
          expect.stringMatching(
            /^config\/rbac\/role\.yaml: kept a rule that an earlier run generated for --values=service\.yaml \(create, delete, get, list, patch, update, watch on services\), which this run was not given: run helm-operator generate rbac --values=service\.yaml to keep deriving it/,
          ),
        ]);
        expect(later.warnings.join('\n')).not.toContain('hand-written');
        expect(await read('config/rbac/role.yaml')).toBe(role);
      }
      expect((await regenerate('service.yaml')).warnings.join('\n')).not.toMatch(/kept/);
      expect(await read('config/rbac/role.yaml')).toBe(role);
    });

    it('leaves the project as it was when a later step fails', async () => {
      const chart = join(dir, 'src', 'needs-values');
      await cp(NEEDS_VALUES, chart, { recursive: true });
      await writeFile(
        join(chart, 'templates', 'widget.yaml'),
        'apiVersion: example.invalid/v1\nkind: Widget\nmetadata:\n  name: w\n',
      );
      await writeFile(join(dir, 'on.yaml'), 'message: hello\n');
      const before = (await readdir(project, { recursive: true })).sort();
      await expect(create([`--helm-chart=${chart}`, `--values=${join(dir, 'on.yaml')}`])).rejects.toMatchObject({
        code: 'SCAFFOLD_UNKNOWN_KIND',
      });
      expect((await readdir(project, { recursive: true })).sort()).toEqual(before);
    });
  },
);
