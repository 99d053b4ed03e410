import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findHelm, SKIP_REASON, scaffoldHelm } from '../../../test/support/scaffold-helm.js';
import { loadWatches } from '../../config/watches.js';
import { parse } from '../../config/yaml.js';
import type { HelmCli } from '../../helm/types.js';
import { runInit } from '../init/init.js';
import { createApi } from './api.js';
import { parseCreateApiArgs } from './flags.js';

const helmBin = findHelm();
const NGINX = join(import.meta.dirname, '..', '..', '..', 'charts', 'nginx');
const signal = () => new AbortController().signal;

let dir = '';
let project = '';
let helm: HelmCli;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'create-api-test-'));
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

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe.skipIf(helmBin === undefined)(
  `create api (helm) ${helmBin === undefined ? SKIP_REASON : ''}`,
  { timeout: 60_000 },
  () => {
    describe('when only --group, --version and --kind are given', () => {
      it('creates the chart with helm create and scaffolds every file of the kind', async () => {
        const result = await create(['--group=cache', '--version=v1alpha1', '--kind=Memcached']);
        expect(result).toMatchObject({
          group: 'cache.example.com',
          kind: 'Memcached',
          plural: 'memcacheds',
          chart: 'charts/memcached',
        });
        expect(existsSync(join(project, 'charts/memcached/Chart.yaml'))).toBe(true);

        const { watches } = loadWatches(join(project, 'watches.yaml'), { env: {}, cwd: project });
        expect(watches.map((w) => [w.group, w.version, w.kind, w.chart])).toEqual([
          ['cache.example.com', 'v1alpha1', 'Memcached', join(project, 'charts/memcached')],
        ]);
        expect(await read('watches.yaml')).toMatch(
          /^# Use the 'create api'[\s\S]*chart: charts\/memcached\n# \+kubebuilder:scaffold:watch\n$/,
        );

        const crd = parse(await read('config/crd/bases/cache.example.com_memcacheds.yaml'));
        expect(crd.metadata.name).toBe('memcacheds.cache.example.com');
        expect(parse(await read('config/crd/kustomization.yaml')).resources).toContain(
          'bases/cache.example.com_memcacheds.yaml',
        );

        const sample = await read('config/samples/cache_v1alpha1_memcached.yaml');
        expect(sample).toContain('# Default values copied from charts/memcached/values.yaml');
        expect(parse(sample).spec).toEqual(parse(await read('charts/memcached/values.yaml')));
        expect(parse(await read('config/samples/kustomization.yaml')).resources).toContain(
          'cache_v1alpha1_memcached.yaml',
        );

        const rbacKustomization = parse(await read('config/rbac/kustomization.yaml')).resources;
        for (const r of ['admin', 'editor', 'viewer']) {
          expect(rbacKustomization).toContain(`memcached_${r}_role.yaml`);
          expect(parse(await read(`config/rbac/memcached_${r}_role.yaml`)).metadata.name).toBe(`memcached-${r}-role`);
        }
        expect(rbacKustomization).toContain('role.yaml'); // init's entries are kept

        const projectFile = parse(await read('PROJECT'));
        expect(projectFile.resources).toEqual([
          { domain: 'example.com', group: 'cache', kind: 'Memcached', version: 'v1alpha1' },
        ]);

        const role = parse(await read('config/rbac/role.yaml'));
        expect(role.metadata.name).toBe('manager-role');
        const grants = (group: string) =>
          role.rules
            .filter((r: { apiGroups: string[] }) => r.apiGroups.includes(group))
            .flatMap((r: { resources: string[] }) => r.resources);
        expect(grants('cache.example.com')).toEqual(
          expect.arrayContaining(['memcacheds', 'memcacheds/status', 'memcacheds/finalizers']),
        );
        expect(grants('apps')).toEqual(['deployments']);
        expect(grants('')).toEqual(expect.arrayContaining(['secrets', 'events', 'services', 'serviceaccounts']));
        expect(grants('')).not.toContain('namespaces');
        expect(JSON.stringify(role.rules)).not.toContain('"*"');
        expect(result.warnings.join('\n')).toMatch(/Ingress/);
      });

      it("refuses to scaffold the same kind twice with operator-sdk's error, and --force regenerates", async () => {
        await create(['--group=cache', '--version=v1alpha1', '--kind=Memcached']);
        const watchesBefore = await read('watches.yaml');
        const err = await rejection(create(['--group=cache', '--version=v1alpha1', '--kind=Memcached']));
        expect(err.message).toBe(
          'the API resource already exists: cache.example.com/v1alpha1, Kind=Memcached; pass --force to scaffold it ' +
            'again (its generated files are overwritten and config/rbac/role.yaml is regenerated from watches.yaml)',
        );
        expect(err).toMatchObject({ code: 'SCAFFOLD_API_EXISTS' });

        await writeFile(
          join(project, 'config/rbac/role.yaml'),
          (await read('config/rbac/role.yaml')).replace('- deployments', '- deployments\n  - pods'),
        );
        const again = await create(['--group=cache', '--version=v1alpha1', '--kind=Memcached', '--force']);
        expect(await read('watches.yaml')).toBe(watchesBefore);
        // The hand-made rule survives the regeneration, named in a warning.
        expect(await read('config/rbac/role.yaml')).toContain('pods');
        expect(again.warnings).toContainEqual(
          expect.stringMatching(/role\.yaml: kept a rule .*\(create, delete, .* on pods\.apps\)/),
        );
        expect(parse(await read('PROJECT')).resources).toHaveLength(1);
      });
    });

    describe('when --plural is given', () => {
      it('names the CRD, its file, the role and generate rbac after it instead of the guessed plural', async () => {
        await create(['--group=cache', '--version=v1alpha1', '--kind=Person', '--plural=people']);
        const crd = parse(await read('config/crd/bases/cache.example.com_people.yaml')) as {
          metadata: { name: string };
          spec: { names: { plural: string } };
        };
        expect(crd.metadata.name).toBe('people.cache.example.com');
        expect(crd.spec.names.plural).toBe('people');
        expect(await read('config/rbac/role.yaml')).toMatch(/- people\n/);
        const err = await rejection(create(['--group=cache', '--version=v1alpha1', '--kind=Other', '--plural=Others']));
        expect(err.message).toMatch(/^--plural "Others" is invalid: a plural is a lowercase RFC 1123 label/);
      });
    });

    describe('when --values-from is given', () => {
      it('lets the manager read ConfigMaps and Secrets and records it in PROJECT, which --force keeps', async () => {
        const canRead = async () => {
          const rules = parse(await read('config/rbac/role.yaml')).rules as { resources: string[]; verbs: string[] }[];
          return rules.some((r) => r.resources.includes('configmaps') && r.verbs.includes('watch'));
        };
        await create(['--group=cache', '--version=v1alpha1', '--kind=Memcached']);
        expect(await canRead()).toBe(false);
        await create(['--group=cache', '--version=v1alpha1', '--kind=Memcached', '--force', '--values-from']);
        expect(await canRead()).toBe(true);
        expect(parse(await read('PROJECT')).valuesFrom).toBe(true);
        await create(['--group=cache', '--version=v1alpha1', '--kind=Memcached', '--force']);
        expect(await canRead()).toBe(true);
      });
    });

    describe('when --helm-chart is a local chart directory with values.schema.json', () => {
      it('copies it under its chart name and defaults group, version and kind from it', async () => {
        const chart = join(dir, 'src-chart');
        await cp(NGINX, chart, { recursive: true });
        await writeFile(
          join(chart, 'values.schema.json'),
          JSON.stringify({
            type: 'object',
            required: ['replicaCount'],
            properties: {
              replicaCount: { type: 'integer', minimum: 0 },
              tier: { type: 'string', enum: ['web', 'db'] },
            },
            additionalProperties: true,
          }),
        );
        const result = await create([`--helm-chart=${chart}`]);
        expect(result).toMatchObject({
          group: 'charts.example.com',
          version: 'v1alpha1',
          kind: 'Nginx',
          chart: 'charts/nginx',
        });
        expect(await readFile(join(project, 'charts/nginx/values.yaml'), 'utf8')).toBe(
          await readFile(join(NGINX, 'values.yaml'), 'utf8'),
        );

        const crd = parse(await read('config/crd/bases/charts.example.com_nginxes.yaml'));
        const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
        expect(spec.properties.replicaCount).toEqual({ type: 'integer', minimum: 0 });
        expect(spec.properties.tier).toEqual({ type: 'string', enum: ['web', 'db'] });
        // values.yaml sets replicaCount: CRs need not (helm validates values merged over values.yaml).
        expect(spec.required).toBeUndefined();
      });

      it('scaffolds a chart that does not render with its default values, with a warning and default rules', async () => {
        const chart = join(dir, 'src-chart');
        await cp(NGINX, chart, { recursive: true });
        await writeFile(join(chart, 'templates', 'tier.yaml'), '{{ required "tier is required" .Values.tier }}\n');
        const result = await create([`--helm-chart=${chart}`]);
        expect(result.warnings).toContainEqual(
          expect.stringMatching(
            /^charts\/nginx does not render with its default values for Kubernetes v[\d.]+ \(helm template: .*tier is required\), so its RBAC rules cannot be derived/,
          ),
        );
        expect(result.warnings.join('\n')).not.toContain('--debug');
        expect(await read('config/rbac/role.yaml')).toContain('# default rules for charts/nginx, which did not render');
        expect(existsSync(join(project, 'charts/nginx/Chart.yaml'))).toBe(true);
      });
    });

    describe('when a second kind is added without --force', () => {
      it('adds its rules to the manager role and keeps the hand-made ones', async () => {
        await create(['--group=cache', '--version=v1alpha1', '--kind=Memcached']);
        const role = await read('config/rbac/role.yaml');
        await writeFile(
          join(project, 'config/rbac/role.yaml'),
          role.replace('- deployments', '- deployments\n  - pods'),
        );
        await create([`--helm-chart=${NGINX}`, '--group=web']);
        const rules = parse(await read('config/rbac/role.yaml')).rules as {
          apiGroups: string[];
          resources: string[];
        }[];
        const all = rules.flatMap((r) => r.resources.map((res) => `${r.apiGroups[0]}/${res}`));
        expect(all).toEqual(
          expect.arrayContaining([
            'apps/pods',
            '/configmaps',
            'web.example.com/nginxes',
            'cache.example.com/memcacheds',
          ]),
        );
        expect(parse(await read('watches.yaml')).map((w: { kind: string }) => w.kind)).toEqual(['Memcached', 'Nginx']);
      });
    });

    describe('when --helm-chart is a packaged .tgz', () => {
      it('unpacks it into charts/<name>', async () => {
        await helm.create({ name: 'web-app', dir, signal: signal() });
        const pkg = join(dir, 'pkg');
        await import('node:child_process').then(({ execFileSync }) =>
          execFileSync(helmBin ?? 'helm', ['package', join(dir, 'web-app'), '-d', pkg], {
            env: { PATH: process.env.PATH, HOME: dir },
          }),
        );
        const [tgz] = await readdir(pkg);
        const result = await create([`--helm-chart=${join(pkg, tgz ?? '')}`]);
        expect(result).toMatchObject({ kind: 'WebApp', chart: 'charts/web-app', plural: 'webapps' });
        expect(existsSync(join(project, 'charts/web-app/templates/deployment.yaml'))).toBe(true);
      });
    });

    describe('when the chart renders a kind nobody knows', () => {
      it('fails with the typed error and leaves the project as it was', async () => {
        const chart = join(dir, 'odd');
        await cp(NGINX, chart, { recursive: true });
        await writeFile(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: odd\nversion: 0.1.0\n');
        await writeFile(
          join(chart, 'templates', 'widget.yaml'),
          'apiVersion: widgets.example.org/v1\nkind: Widget\nmetadata:\n  name: w\n',
        );
        const before = await read('watches.yaml');
        const err = await rejection(create([`--helm-chart=${chart}`]));
        expect(err).toMatchObject({ code: 'SCAFFOLD_UNKNOWN_KIND' });
        expect(err.message).toContain('widgets.example.org/v1 Widget (rendered by odd/templates/widget.yaml)');
        expect(existsSync(join(project, 'charts/odd'))).toBe(false);
        expect(await read('watches.yaml')).toBe(before);
        expect(parse(await read('PROJECT')).resources ?? []).toEqual([]);
      });
    });
  },
);

describe('create api without a project', () => {
  it('says to run init first', async () => {
    const err = await rejection(
      createApi(
        parseCreateApiArgs(['--kind=Foo', '--group=a', '--version=v1'], dir),
        { helm: {} as HelmCli },
        signal(),
      ),
    );
    expect(err).toMatchObject({ code: 'SCAFFOLD_NO_PROJECT' });
  });

  it('validates the kind before touching helm', async () => {
    const err = await rejection(
      createApi(
        parseCreateApiArgs(['--kind=foo', '--group=a', '--version=v1'], project),
        { helm: {} as HelmCli },
        signal(),
      ),
    );
    expect(err.message).toMatch(/--kind "foo" is invalid/);
  });
});
