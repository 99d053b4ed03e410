// create api's checks on a chart: the CRD keeps what values.schema.json leaves open, a CRD that would prune or
// reject the chart's own defaults stops it, and charts are rendered for a current Kubernetes (or --kube-version).
// Needs a real helm (HELM_BIN or the testenv's); skipped otherwise.
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findHelm, SKIP_REASON, scaffoldHelm } from '../../../test/support/scaffold-helm.js';
import { parse } from '../../config/yaml.js';
import type { HelmCli } from '../../helm/types.js';
import { runInit } from '../init/init.js';
import { DEFAULT_KUBE_VERSION } from '../rbac/kube-version.js';
import { createApi } from './api.js';
import { parseCreateApiArgs } from './flags.js';

const helmBin = findHelm();
const NGINX = join(import.meta.dirname, '..', '..', '..', 'charts', 'nginx');
const signal = () => new AbortController().signal;

let dir = '';
let project = '';
let helm: HelmCli;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'create-api-checks-'));
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
  `create api checks (helm) ${helmBin === undefined ? SKIP_REASON : ''}`,
  { timeout: 60_000 },
  () => {
    describe('when --helm-chart has a values.schema.json', () => {
      it('keeps the values its schema leaves open: the CRD preserves them and the sample passes the check', async () => {
        const chart = join(dir, 'src-chart');
        await cp(NGINX, chart, { recursive: true });
        // Declares image.repository only; values.yaml also sets image.tag, image.pullPolicy, service, index.
        await writeFile(
          join(chart, 'values.schema.json'),
          JSON.stringify({
            type: 'object',
            properties: { image: { type: 'object', properties: { repository: { type: 'string' } } } },
          }),
        );
        const result = await create([`--helm-chart=${chart}`]);
        expect(result.warnings.filter((w) => w.startsWith('values.schema.json'))).toEqual([]);
        const crd = parse(await read('config/crd/bases/charts.example.com_nginxes.yaml'));
        const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
        expect(spec['x-kubernetes-preserve-unknown-fields']).toBe(true);
        expect(spec.properties.image).toEqual({
          type: 'object',
          properties: { repository: { type: 'string' } },
          'x-kubernetes-preserve-unknown-fields': true,
        });
      });

      it('refuses a schema that would prune or reject the chart defaults, naming each field, and changes nothing', async () => {
        const chart = join(dir, 'src-chart');
        await cp(NGINX, chart, { recursive: true });
        await writeFile(
          join(chart, 'values.schema.json'),
          JSON.stringify({
            type: 'object',
            properties: {
              replicaCount: { type: 'string' },
              image: { type: 'object', additionalProperties: false, properties: { repository: { type: 'string' } } },
            },
          }),
        );
        const before = await read('watches.yaml');
        const err = await rejection(create([`--helm-chart=${chart}`]));
        expect(err).toMatchObject({ code: 'SCAFFOLD_SAMPLE_REJECTED' });
        expect(err.message).toContain('spec.replicaCount: rejected: is an integer, not a string (type: string)');
        expect(err.message).toMatch(
          /spec\.image\.tag: pruned: spec\.image keeps only the fields it declares \(values\.schema\.json sets additionalProperties: false there\)/,
        );
        expect(err.message).toContain('spec.image.pullPolicy: pruned');
        expect(existsSync(join(project, 'charts/nginx'))).toBe(false);
        expect(existsSync(join(project, 'config/crd/bases/charts.example.com_nginxes.yaml'))).toBe(false);
        expect(await read('watches.yaml')).toBe(before);
      });
    });

    describe("when the chart's Chart.yaml sets kubeVersion", () => {
      const chartWith = async (kubeVersion: string) => {
        const chart = join(dir, 'src-chart');
        await cp(NGINX, chart, { recursive: true });
        const meta = await readFile(join(chart, 'Chart.yaml'), 'utf8');
        await writeFile(join(chart, 'Chart.yaml'), `${meta}kubeVersion: "${kubeVersion}"\n`);
        return chart;
      };

      it('renders it for a current Kubernetes when no cluster answers (>=1.21.0-0 passes)', async () => {
        const result = await create([`--helm-chart=${await chartWith('>=1.21.0-0')}`]);
        expect(result.kind).toBe('Nginx');
      });

      it('says which Kubernetes the chart needs and to pass --kube-version, which then works', async () => {
        const chart = await chartWith('<1.25.0-0');
        const err = await rejection(create([`--helm-chart=${chart}`]));
        expect(err).toMatchObject({ code: 'SCAFFOLD_CHART_RENDER' });
        expect(err.message).toMatch(
          /^cannot render charts\/nginx: the chart needs Kubernetes <1\.25\.0-0 \(kubeVersion/,
        );
        expect(err.message).toContain(`rendered for Kubernetes ${DEFAULT_KUBE_VERSION} (the built-in default`);
        expect(err.message).toContain('Pass --kube-version=');
        expect(err.message).not.toContain('default values that render');
        expect(existsSync(join(project, 'charts/nginx'))).toBe(false);
        const result = await create([`--helm-chart=${chart}`, '--kube-version=1.24']);
        expect(result.kind).toBe('Nginx');
      });
    });
  },
);
