import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from '../../config/yaml.js';
import { generateBundle } from './bundle.js';
import { checkBundle, validateBundle } from './validate.js';

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

  it('checks semver versions and names; a CSV name other than <package>.v<version> is only a warning', async () => {
    edit(CSV, (o) => {
      o.metadata.name = 'nginx.v0.1.0';
      o.spec.version = 'one.two';
      o.spec.replaces = 'Nginx.v0.0.9';
      o.spec.minKubeVersion = 'latest';
      o.spec.displayName = undefined;
    });
    expect(await problems()).toEqual([
      `${CSV}: spec.version "one.two" is not semver`,
      `${CSV}: spec.replaces "Nginx.v0.0.9" is not a DNS-1123 subdomain of at most 63`,
      `${CSV}: spec.displayName is required`,
      `${CSV}: spec.minKubeVersion "latest" is not semver`,
    ]);
    expect((await checkBundle(bundle)).warnings).toEqual([
      `${CSV}: metadata.name "nginx.v0.1.0" should be "<package>.v<spec.version>" = "nginx-operator.vone.two"`,
    ]);
    // OLM reads versions as blang/semver's ParseTolerant does: "v1.02" is 1.2.0, a warning; "1.0-rc1" none.
    edit(CSV, (o) => {
      o.metadata.name = 'nginx-operator.vv1.02';
      o.spec.version = 'v1.02';
      o.spec.minKubeVersion = '1.27.0';
      o.spec.displayName = 'Nginx';
      o.spec.replaces = undefined;
    });
    expect(await checkBundle(bundle)).toEqual({
      errors: [],
      warnings: [`${CSV}: spec.version "v1.02" is not strict semver (OLM reads it as 1.2.0)`],
    });
    edit(CSV, (o) => {
      o.spec.version = '1.0-rc1';
    });
    expect(await problems()).toEqual([`${CSV}: spec.version "1.0-rc1" is not semver`]);
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

  it('wants install modes, each once, of known types, at least one supported', async () => {
    edit(CSV, (o) => {
      o.spec.installModes = [
        ...o.spec.installModes.map((m: Obj) => ({ ...m, supported: false })),
        { type: 'OwnNamespace', supported: false },
        { type: 'EveryNamespace', supported: false },
      ];
    });
    expect(await problems()).toEqual([
      `${CSV}: spec.installModes lists OwnNamespace more than once`,
      `${CSV}: spec.installModes has an unknown type EveryNamespace`,
      `${CSV}: spec.installModes supports no install mode`,
    ]);
    edit(CSV, (o) => {
      o.spec.installModes = [];
    });
    expect(await problems()).toEqual([
      `${CSV}: spec.installModes is empty (list OwnNamespace, SingleNamespace, MultiNamespace, AllNamespaces, each supported or not)`,
    ]);
  });

  it('matches owned CRDs and CRD files both ways, by group, version and kind', async () => {
    edit(CRD, (o) => {
      o.spec.names.kind = 'WebServer';
    });
    const at = `${CSV}: spec.customresourcedefinitions.owned nginxes.demo.example.com (v1alpha1, Nginx)`;
    expect(await problems()).toEqual([
      `${at}: no CRD in manifests/ has group demo.example.com, version v1alpha1 and kind Nginx`,
      `${CRD}: CRD demo.example.com/v1alpha1 WebServer is in the bundle but not in the CSV's spec.customresourcedefinitions.owned`,
    ]);
    edit(CRD, (o) => {
      o.spec.names.kind = 'Nginx';
      o.spec.versions.push({ ...o.spec.versions[0], name: 'v1', storage: false });
    });
    // Another version of an owned kind needs no entry of its own.
    expect(await problems()).toEqual([]);
  });

  it('checks each CRD as the API server does: name, group, names, scope, versions, one storage version', async () => {
    edit(CRD, (o) => {
      o.metadata.name = 'nginx.demo.example.com';
      o.spec.scope = 'Global';
      o.spec.names.listKind = 'Nginx';
      o.spec.versions.push({ ...o.spec.versions[0] });
    });
    expect(await problems()).toEqual(
      expect.arrayContaining([
        `${CRD}: metadata.name "nginx.demo.example.com" must be spec.names.plural.spec.group = "nginxes.demo.example.com"`,
        `${CRD}: spec.names.listKind must differ from spec.names.kind`,
        `${CRD}: spec.scope "Global" must be Namespaced or Cluster`,
        `${CRD}: spec.versions[1].name "v1alpha1" appears twice`,
        `${CRD}: spec.versions marks 2 versions as the storage version, want exactly 1`,
      ]),
    );
  });

  it('adds the operatorframework suite on request: provider, maintainers, links, icon, categories', async () => {
    expect(await checkBundle(bundle, { suite: 'operatorframework' })).toEqual({
      errors: [],
      warnings: [`${CSV}: spec.icon is not set (catalogues show a placeholder)`],
    });
    edit(CSV, (o) => {
      o.spec.provider = { name: ' ' };
      o.spec.maintainers = [{ name: 'a' }, { name: 'b', email: 'not an address' }];
      o.spec.links = [{ name: 'docs', url: 'docs.example.com' }];
      o.spec.icon = [
        { base64data: 'AAAA', mediatype: 'image/bmp' },
        { base64data: '', mediatype: '' },
      ];
      o.metadata.annotations.capabilities = 'Basic';
      o.metadata.annotations.categories = 'Networking, Fun';
    });
    const hub = await checkBundle(bundle, { suite: 'operatorframework' });
    expect(hub.errors).toEqual([
      `${CSV}: spec.provider.name is required`,
      `${CSV}: spec.maintainers[0] needs both name and email`,
      `${CSV}: spec.maintainers[1].email "not an address" is not an e-mail address`,
      `${CSV}: spec.links[0].url "docs.example.com" is not a URL`,
      `${CSV}: metadata.annotations.capabilities "Basic" is not one of Basic Install, Seamless Upgrades, Full Lifecycle, Deep Insights, Auto Pilot`,
      `${CSV}: metadata.annotations.categories "Fun" is not a standard category`,
      `${CSV}: spec.icon has 2 entries, want exactly 1`,
      `${CSV}: spec.icon[0].mediatype "image/bmp" is not one of image/gif, image/jpeg, image/png, image/svg+xml`,
    ]);
    expect(await problems()).toEqual([]); // the default checks leave the catalogue metadata alone
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
