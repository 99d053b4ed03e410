// `helm-operator bundle validate` agrees with the real validators: operator-registry's format check and
// operator-framework/api's default validators and operatorhub suite, built from their Go modules (hack/olm/validate,
// by hack/olm/build-validate.sh; make test builds it in the background and sets OLM_VALIDATE). Both run on the bundle
// of a scaffolded project and on copies of it broken on purpose, each in a different way: both must find it valid or
// both invalid, with and without the operatorframework suite, and both must name what was broken.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from '../../../src/config/yaml.js';
import { ROOT } from '../../support/operator.js';
import { newProject, type Project } from '../../support/project.js';

const MAIN = join(ROOT, 'dist/cmd/main.js');
const HAVE_GO = spawnSync('go', ['version']).status === 0;
const CSV = 'manifests/agree.clusterserviceversion.yaml';
const CRD = 'manifests/web.example.com_webapps.yaml';
const ANNOTATIONS = 'metadata/annotations.yaml';

interface Reference {
  readonly formatErrors: string[];
  readonly loadError?: string;
  readonly findings: { validator: string; level: string; detail: string; field?: string }[];
}
interface Ours {
  readonly passed: boolean;
  readonly errors: string[];
  readonly warnings: string[];
}

// biome-ignore lint/suspicious/noExplicitAny: the cases reach into manifests by path to break them
type Obj = Record<string, any>;
interface Case {
  readonly title: string;
  readonly suite?: boolean;
  readonly breakIt: (b: Bundle) => void;
  /** What the reference's errors and ours must each say. */
  readonly reference: RegExp;
  readonly ours: RegExp;
}
interface Bundle {
  path(file: string): string;
  edit(file: string, change: (o: Obj) => void): void;
  remove(file: string): void;
  write(file: string, text: string): void;
}

const CASES: Case[] = [
  {
    title: 'no ClusterServiceVersion',
    breakIt: (b) => b.remove(CSV),
    reference: /unable to find a csv/,
    ours: /holds 0 ClusterServiceVersions/,
  },
  {
    title: 'an owned CRD that is not in the bundle',
    breakIt: (b) =>
      b.edit(CSV, (o) => {
        o.spec.customresourcedefinitions.owned[0].kind = 'Website';
      }),
    reference: /owned CRD ".*Website" not found/,
    ours: /no CRD in manifests\/ has group web\.example\.com, version v1alpha1 and kind Website/,
  },
  {
    title: 'a CRD the CSV does not own',
    breakIt: (b) =>
      b.edit(CSV, (o) => {
        o.spec.customresourcedefinitions.owned = [];
        o.metadata.annotations['alm-examples'] = '[]';
      }),
    reference: /is present in bundle .* but not defined in CSV/,
    ours: /CRD web\.example\.com\/v1alpha1 Webapp is in the bundle but not in the CSV's/,
  },
  {
    title: 'a version that is not semver',
    breakIt: (b) =>
      b.edit(CSV, (o) => {
        o.spec.version = 'one.two';
      }),
    reference: /unable to parse CSV/,
    ours: /spec\.version "one\.two" is not semver/,
  },
  {
    title: 'no metadata/annotations.yaml',
    breakIt: (b) => b.remove(ANNOTATIONS),
    reference: /Could not find annotations file/,
    ours: /metadata\/annotations\.yaml: missing/,
  },
  {
    title: 'annotations without channels',
    breakIt: (b) =>
      b.edit(ANNOTATIONS, (o) => {
        delete o.annotations['operators.operatorframework.io.bundle.channels.v1'];
        delete o.annotations['operators.operatorframework.io.bundle.channel.default.v1'];
      }),
    reference: /Missing annotation "operators\.operatorframework\.io\.bundle\.channels\.v1"/,
    ours: /operators\.operatorframework\.io\.bundle\.channels\.v1 must list one or more channels/,
  },
  {
    title: 'a media type other than registry+v1',
    breakIt: (b) =>
      b.edit(ANNOTATIONS, (o) => {
        o.annotations['operators.operatorframework.io.bundle.mediatype.v1'] = 'plain+v0';
      }),
    reference: /mediatype\.v1" to have value "registry\+v1" instead of "plain\+v0"/,
    ours: /mediatype\.v1 is "plain\+v0", want "registry\+v1"/,
  },
  {
    title: 'an alm-examples CR of a kind the bundle does not provide',
    breakIt: (b) =>
      b.edit(CSV, (o) => {
        o.metadata.annotations['alm-examples'] = JSON.stringify([
          { apiVersion: 'web.example.com/v1', kind: 'Webapp', metadata: { name: 'x' } },
        ]);
      }),
    reference: /example must have a provided API/,
    ours: /alm-examples\[0\] \(web\.example\.com\/v1 Webapp\) is not an owned CRD's kind/,
  },
  {
    title: 'no supported install mode',
    breakIt: (b) =>
      b.edit(CSV, (o) => {
        o.spec.installModes = o.spec.installModes.map((m: Obj) => ({ ...m, supported: false }));
      }),
    reference: /none of InstallModeTypes are supported/,
    ours: /spec\.installModes supports no install mode/,
  },
  {
    title: 'a CRD with two storage versions',
    breakIt: (b) =>
      b.edit(CRD, (o) => {
        o.spec.versions.push({ ...o.spec.versions[0], name: 'v1beta1', storage: true });
      }),
    reference: /exactly one version marked as storage version/,
    ours: /spec\.versions marks 2 versions as the storage version, want exactly 1/,
  },
  {
    title: 'a ServiceAccount that the CSV deployment runs as',
    breakIt: (b) => {
      const csv = parse(readFileSync(b.path(CSV), 'utf8')) as Obj;
      const account = csv.spec.install.spec.deployments[0].spec.template.spec.serviceAccountName;
      b.write(
        'manifests/sa.yaml',
        stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account } }),
      );
    },
    reference: /invalid service account found in bundle/,
    ours: /ServiceAccount .* is the one a CSV deployment runs as/,
  },
  {
    title: 'a CSV name that is not a DNS-1123 subdomain',
    breakIt: (b) =>
      b.edit(CSV, (o) => {
        o.metadata.name = 'Agree_v0.0.1';
      }),
    reference: /metadata\.name "Agree_v0\.0\.1" is invalid/,
    ours: /metadata\.name "Agree_v0\.0\.1" is not a DNS-1123 subdomain/,
  },
  {
    title: 'operatorframework: a maintainer without an e-mail address',
    suite: true,
    breakIt: (b) =>
      b.edit(CSV, (o) => {
        o.spec.maintainers = [{ name: 'someone' }];
      }),
    reference: /Maintainers elements should contain both name and email/,
    ours: /spec\.maintainers\[0\] needs both name and email/,
  },
  {
    title: 'operatorframework: an icon of a media type catalogues cannot show',
    suite: true,
    breakIt: (b) =>
      b.edit(CSV, (o) => {
        o.spec.icon = [{ base64data: 'AAAA', mediatype: 'image/bmp' }];
      }),
    reference: /Icon image\/bmp does not have a valid mediatype/,
    ours: /spec\.icon\[0\]\.mediatype "image\/bmp" is not one of/,
  },
  {
    title: 'operatorframework: no provider name',
    suite: true,
    breakIt: (b) =>
      b.edit(CSV, (o) => {
        o.spec.provider = { name: '' };
      }),
    reference: /Provider\.Name not specified/,
    ours: /spec\.provider\.name is required/,
  },
];

function buildReference(): string {
  if (process.env.OLM_VALIDATE) return process.env.OLM_VALIDATE;
  const r = spawnSync('bash', [join(ROOT, 'hack/olm/build-validate.sh')], { encoding: 'utf8', timeout: 900_000 });
  if (r.status !== 0) throw new Error(`hack/olm/build-validate.sh failed:\n${r.stderr}`);
  return r.stdout.trim().split('\n').at(-1) ?? '';
}

describe.skipIf(!HAVE_GO && !process.env.OLM_VALIDATE)(
  'bundle validate agrees with operator-framework/api (skipped without Go and OLM_VALIDATE: the reference is built from its module)',
  () => {
    let project: Project;
    let reference = '';
    let work = '';

    beforeAll(() => {
      reference = buildReference();
      work = mkdtempSync(join(tmpdir(), 'olm-agree-'));
      project = newProject('agree');
      project.cli('init', '--domain=example.com', '--project-name=agree');
      project.cli('create', 'api', '--group=web', '--version=v1alpha1', '--kind=Webapp');
      writeFileSync(join(project.dir, 'manifests.yaml'), project.kubectl('kustomize', 'config/manifests'));
      project.cli('generate', 'bundle', '-f', 'manifests.yaml', '--version=0.0.1', '--image=example.com/agree:v0.0.1');
    }, 900_000);
    afterAll(() => {
      project?.remove();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    const runReference = (dir: string): Reference => {
      const r = spawnSync(reference, [dir], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Reference;
    };
    const runOurs = (dir: string, suite: boolean): Ours => {
      const args = [
        'bundle',
        'validate',
        dir,
        '--output=json',
        ...(suite ? ['--select-optional=suite=operatorframework'] : []),
      ];
      const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8' });
      const ours = JSON.parse(r.stdout) as Ours;
      expect(r.status).toBe(ours.passed ? 0 : 1);
      return ours;
    };
    /** The reference's errors: the format check's, the loader's, then the validators' (default, or all). */
    const referenceErrors = (ref: Reference, suite: boolean) => [
      ...ref.formatErrors,
      ...(ref.loadError ? [ref.loadError] : []),
      ...ref.findings
        .filter((f) => f.level === 'Error' && (suite || f.validator === 'default'))
        .map((f) => `${f.field ?? ''} ${f.detail}`),
    ];

    it('finds the scaffolded bundle valid, with only the missing icon to warn about', () => {
      const dir = join(project.dir, 'bundle');
      const ref = runReference(dir);
      expect(referenceErrors(ref, true)).toEqual([]);
      const refWarnings = ref.findings.filter(
        (f) => f.level === 'Warning' && f.detail.includes('deprecated') === false,
      );
      expect(refWarnings.map((f) => f.detail)).toEqual([expect.stringMatching(/csv\.Spec\.Icon not specified/)]);
      expect(runOurs(dir, false)).toEqual({ passed: true, errors: [], warnings: [] });
      expect(runOurs(dir, true)).toEqual({
        passed: true,
        errors: [],
        warnings: [`${CSV}: spec.icon is not set (catalogues show a placeholder)`],
      });
    });

    it.each(CASES.map((c) => [c.title, c] as const))('agrees on a bundle with %s', (_title, c) => {
      const dir = join(work, c.title.replace(/\W+/g, '-'));
      cpSync(join(project.dir, 'bundle'), dir, { recursive: true });
      const path = (f: string) => join(dir, f);
      c.breakIt({
        path,
        edit: (f, change) => {
          const o = parse(readFileSync(path(f), 'utf8')) as Obj;
          change(o);
          writeFileSync(path(f), stringify(o));
        },
        remove: (f) => rmSync(path(f)),
        write: (f, text) => writeFileSync(path(f), text),
      });
      const ref = runReference(dir);
      for (const suite of [false, true]) {
        const refErrors = referenceErrors(ref, suite);
        const ours = runOurs(dir, suite);
        // The same verdict: a broken bundle is invalid for both (the suite's cases only with the suite).
        expect({ suite, valid: ours.passed }).toEqual({ suite, valid: refErrors.length === 0 });
        if (suite || !c.suite) {
          expect(refErrors.join('\n')).toMatch(c.reference);
          expect(ours.errors.join('\n')).toMatch(c.ours);
        }
      }
    });
  },
);
