import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from '../../config/yaml.js';
import { generateBundle } from './bundle.js';
import { validateBundle } from './validate.js';

// biome-ignore lint/suspicious/noExplicitAny: tests reach into manifests by path to break them
type Obj = Record<string, any>;

const FIXTURE = new URL('../../../test/fixtures/bundle/manifests.yaml', import.meta.url);
const CSV = 'manifests/nginx-operator.clusterserviceversion.yaml';
const CRD = 'manifests/demo.example.com_nginxes.yaml';
const ANNOTATIONS = 'metadata/annotations.yaml';

describe('validateBundle', () => {
  let project: string;
  let bundle: string;
  const path = (p: string) => join(bundle, p);
  const edit = (file: string, change: (o: Obj) => void) => {
    const o = parse(readFileSync(path(file), 'utf8')) as Obj;
    change(o);
    writeFileSync(path(file), stringify(o));
  };
  const write = (file: string, text: string) => writeFileSync(path(file), text);
  const problems = () => validateBundle(bundle);

  beforeEach(async () => {
    project = await mkdtemp(join(tmpdir(), 'bundle-validate-'));
    bundle = join(project, 'bundle');
    const docs = parseAllDocuments(readFileSync(FIXTURE, 'utf8'));
    const objects = Array.isArray(docs) ? docs.map((d) => d.toJS() as Record<string, unknown>) : [];
    const { files } = generateBundle({ objects, packageName: 'nginx-operator', version: '0.1.0', image: 'op:0.1.0' });
    for (const [p, content] of Object.entries(files)) {
      mkdirSync(dirname(join(project, p)), { recursive: true });
      writeFileSync(join(project, p), content);
    }
  });
  afterEach(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it('finds nothing wrong with a generated bundle', async () => {
    expect(await problems()).toEqual([]);
  });

  it('checks annotations.yaml: present, fixed keys and values, package, channels', async () => {
    edit(ANNOTATIONS, (o) => {
      o.annotations['operators.operatorframework.io.bundle.mediatype.v1'] = 'plain+v0';
      o.annotations['operators.operatorframework.io.bundle.manifests.v1'] = 'manifests';
      o.annotations['operators.operatorframework.io.bundle.package.v1'] = 'Nginx';
      o.annotations['operators.operatorframework.io.bundle.channel.default.v1'] = 'stable';
    });
    const found = await problems();
    expect(found).toEqual(
      expect.arrayContaining([
        'metadata/annotations.yaml: operators.operatorframework.io.bundle.mediatype.v1 is "plain+v0", want "registry+v1"',
        'metadata/annotations.yaml: operators.operatorframework.io.bundle.manifests.v1 is "manifests", want "manifests/"',
        'metadata/annotations.yaml: operators.operatorframework.io.bundle.package.v1 must be the package name (a DNS-1123 label)',
        'metadata/annotations.yaml: operators.operatorframework.io.bundle.channel.default.v1 "stable" is not one of the channels',
      ]),
    );
    rmSync(path(ANNOTATIONS));
    expect(await problems()).toEqual([
      'metadata/annotations.yaml: missing (every bundle needs metadata/annotations.yaml)',
    ]);
  });

  it('checks the manifests directory: present, flat, no hidden files, one object per file', async () => {
    mkdirSync(path('manifests/extra'));
    write('manifests/.hidden.yaml', 'a: 1\n');
    write(
      'manifests/two.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
    );
    expect(await problems()).toEqual([
      'manifests/.hidden.yaml: a hidden file (OLM refuses them)',
      'manifests/extra: a directory (OLM reads no subdirectories of manifests/)',
      'manifests/two.yaml: holds 2 objects; OLM reads exactly one per file',
    ]);
    rmSync(path('manifests'), { recursive: true });
    expect(await problems()).toContain("manifests/: missing (the bundle's manifests directory)");
  });

  it('wants exactly one CSV', async () => {
    writeFileSync(path('manifests/copy.clusterserviceversion.yaml'), readFileSync(path(CSV)));
    expect(await problems()).toContain('manifests/: holds 2 ClusterServiceVersions, want exactly 1');
    rmSync(path(CSV));
    rmSync(path('manifests/copy.clusterserviceversion.yaml'));
    expect(await problems()).toContain('manifests/: holds 0 ClusterServiceVersions, want exactly 1');
  });

  it('checks the CSV name against <package>.v<version>, and semver versions', async () => {
    edit(CSV, (o) => {
      o.metadata.name = 'nginx.v0.1.0';
      o.spec.version = '0.1';
      o.spec.minKubeVersion = 'latest';
      o.spec.displayName = undefined;
    });
    expect(await problems()).toEqual([
      `${CSV}: spec.version "0.1" is not semver`,
      `${CSV}: metadata.name "nginx.v0.1.0" should be "<package>.v<spec.version>" = "nginx-operator.v0.1"`,
      `${CSV}: spec.displayName is required`,
      `${CSV}: spec.minKubeVersion "latest" is not semver`,
    ]);
  });

  it('wants a deployment install strategy with at least one deployment and named service accounts', async () => {
    edit(CSV, (o) => {
      o.spec.install.strategy = 'helm';
      o.spec.install.spec.deployments = [];
      o.spec.install.spec.permissions[0].serviceAccountName = '';
    });
    expect(await problems()).toEqual([
      `${CSV}: spec.install.strategy is "helm", want "deployment"`,
      `${CSV}: spec.install.spec.deployments needs at least one deployment`,
      `${CSV}: spec.install.spec.permissions[0].serviceAccountName is required`,
    ]);
  });

  it('wants the four install modes, each once, at least one supported', async () => {
    edit(CSV, (o) => {
      o.spec.installModes = o.spec.installModes
        .filter((m: Obj) => m.type !== 'MultiNamespace')
        .map((m: Obj) => ({ ...m, supported: false }));
    });
    expect(await problems()).toEqual([
      `${CSV}: spec.installModes has 0 entries of type MultiNamespace, want 1`,
      `${CSV}: spec.installModes supports no install mode`,
    ]);
  });

  it('matches owned CRDs and CRD files both ways, by name, kind and served version', async () => {
    edit(CRD, (o) => {
      o.spec.names.kind = 'WebServer';
      o.spec.versions[0].served = false;
    });
    const at = `${CSV}: spec.customresourcedefinitions.owned nginxes.demo.example.com (v1alpha1, Nginx)`;
    expect(await problems()).toEqual([
      `${at}: the CRD's kind is WebServer`,
      `${at}: the CRD serves no version v1alpha1`,
    ]);
    renameSync(path(CRD), path('manifests/other.yaml'));
    edit('manifests/other.yaml', (o) => {
      o.metadata.name = 'webservers.demo.example.com';
    });
    expect(await problems()).toEqual(
      expect.arrayContaining([
        `${at}: no CRD of that name in manifests/`,
        "manifests/other.yaml: CRD webservers.demo.example.com is in the bundle but not in the CSV's spec.customresourcedefinitions.owned",
      ]),
    );
  });

  it('wants alm-examples to be JSON naming owned kinds', async () => {
    edit(CSV, (o) => {
      o.metadata.annotations['alm-examples'] = JSON.stringify([{ apiVersion: 'demo.example.com/v1', kind: 'Nginx' }]);
    });
    expect(await problems()).toEqual([
      `${CSV}: alm-examples[0] (demo.example.com/v1 Nginx) is not an owned CRD's kind`,
    ]);
    edit(CSV, (o) => {
      o.metadata.annotations['alm-examples'] = '[{"kind": ';
    });
    expect((await problems())[0]).toMatch(
      /^manifests\/nginx-operator\.clusterserviceversion\.yaml: metadata\.annotations\.alm-examples is not JSON/,
    );
  });

  it('wants every object named and of a kind OLM accepts', async () => {
    write('manifests/web.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n');
    write('manifests/nameless.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n');
    write('manifests/broken.yaml', 'a: [\n');
    expect(await problems()).toEqual([
      expect.stringMatching(/^manifests\/broken\.yaml: not valid YAML or JSON/),
      'manifests/nameless.yaml: needs apiVersion, kind and metadata.name',
      'manifests/web.yaml: kind Deployment is not allowed in a registry+v1 bundle',
    ]);
  });

  it('refuses a ServiceAccount that a CSV deployment runs as (OLM creates it)', async () => {
    write(
      'manifests/sa.yaml',
      'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: nginx-operator-controller-manager}\n',
    );
    expect(await problems()).toEqual([
      'manifests/sa.yaml: ServiceAccount nginx-operator-controller-manager is the one a CSV deployment runs as; OLM creates it, remove the file',
    ]);
  });

  it('wants bundle.Dockerfile labels equal to annotations.yaml, FROM scratch, and both COPY lines', async () => {
    const file = join(project, 'bundle.Dockerfile');
    const text = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      text
        .replace('FROM scratch', 'FROM busybox:1')
        .replace('channels.v1=alpha', 'channels.v1=stable')
        .replace('COPY bundle/metadata /metadata/\n', 'LABEL operators.operatorframework.io.extra=1\n'),
    );
    expect(await problems()).toEqual([
      'bundle.Dockerfile: LABEL operators.operatorframework.io.bundle.channels.v1 is "stable", want "alpha"',
      'bundle.Dockerfile: LABEL operators.operatorframework.io.extra is not in metadata/annotations.yaml',
      'bundle.Dockerfile: needs "COPY bundle/metadata /metadata/"',
      'bundle.Dockerfile: must be FROM scratch',
    ]);
  });

  it('stops when its signal is aborted', async () => {
    await expect(validateBundle(bundle, { signal: AbortSignal.abort(new Error('stop')) })).rejects.toThrow('stop');
  });
});
